"""`model init`, `train sft | grpo`, `launch`: the embedded model and training."""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import fields
from pathlib import Path

from codefrontier.base.options import add_options, flag, from_args
from codefrontier.cli.evaluate import add_episode_options, episode_limits
from codefrontier.models.embedded import EmbeddedModelSpec
from codefrontier.rewards import reward_names
from codefrontier.settings.registry import repair_setting
from codefrontier.train.repair import RepairOptions
from codefrontier.train.submissions import RESUBMIT_EXIT_STATUS, StoppedToResubmit, Submission


def _model_init(args: argparse.Namespace) -> int:
    from codefrontier.models.embedded import init_embedded_model

    sizes = {f.name: getattr(args, f.name) for f in fields(EmbeddedModelSpec)
             if getattr(args, f.name, None) is not None}
    out = init_embedded_model(args.out, args.texts, EmbeddedModelSpec(**sizes),
                              force=args.force)
    print(f"embedded model -> {out}")
    return 0


def _submission(args: argparse.Namespace) -> Submission:
    return Submission(attempt=args.attempt, stop_after_minutes=args.stop_after)


def resubmits_when_stopped(handler):
    """A training command's handler, which ends with RESUBMIT_EXIT_STATUS when its run
    stopped before its end with a checkpoint saved (train/submissions.py)."""
    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except StoppedToResubmit as stop:
            print(f"codefrontier train: {stop}", file=sys.stderr)
            return RESUBMIT_EXIT_STATUS

    return run


@resubmits_when_stopped
def _train_sft(args: argparse.Namespace) -> int:
    from codefrontier.train.common import parse_overrides
    from codefrontier.train.sft import run_sft

    out = run_sft(args.model, args.data, args.out, parse_overrides(args.set), args.work_dir,
                  keep_checkpoints=args.keep_checkpoints, submission=_submission(args))
    print(f"SFT of {args.model} on {args.data} -> {out}")
    return 0


@resubmits_when_stopped
def _train_grpo(args: argparse.Namespace) -> int:
    from codefrontier.train.common import parse_overrides
    from codefrontier.train.grpo import run_grpo

    repair = from_args(RepairOptions, args) if args.repair else None
    out = run_grpo(args.model, args.problems, args.reward, args.out, parse_overrides(args.set),
                   args.work_dir, judge_workers=args.judge_workers, setting=args.setting,
                   episode_limits=episode_limits(args), repair=repair,
                   keep_checkpoints=args.keep_checkpoints, submission=_submission(args))
    kind = "repair GRPO" if repair else "GRPO"
    print(f"{kind} of {args.model} with reward {args.reward} -> {out}")
    return 0


def launched_work_dir(command: list[str]) -> Path | None:
    """The work folder of a launched `train` command (None for another command)."""
    from codefrontier.train.common import work_dir_for

    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--out")
    parser.add_argument("--work-dir")
    known, _ = parser.parse_known_args(command)
    return work_dir_for(Path(known.out), known.work_dir) if known.out else None


def _launch(args: argparse.Namespace) -> int:
    from codefrontier.train.launch import run_launched

    command = [a for a in args.command_line if a != "--"]
    if not command:
        raise ValueError("give the codefrontier command to launch after --, e.g. -- train sft ...")
    return run_launched(args.processes, command, cpu=args.cpu,
                        accelerate_config=args.accelerate_config,
                        work_dir=launched_work_dir(command))


def _add_model_init(commands) -> None:
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


def _add_train(commands) -> None:
    train = commands.add_parser("train", help="SFT and GRPO with TRL")
    train_commands = train.add_subparsers(dest="train_command", required=True)
    overrides = argparse.ArgumentParser(add_help=False)
    overrides.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                           help="any TRL config field (SFTConfig / GRPOConfig), value as YAML; "
                                "repeat for several")
    overrides.add_argument("--work-dir", help="trainer checkpoints, for resuming "
                                              "(default: OUT.work next to the output)")
    overrides.add_argument("--keep-checkpoints", action="store_true",
                           help="keep the trainer checkpoints once the output is published "
                                "(default: removed; the run's logs stay in the work folder)")
    overrides.add_argument("--stop-after", type=float, metavar="MINUTES",
                           help="save a checkpoint and exit with status "
                                f"{RESUBMIT_EXIT_STATUS} before this many minutes have "
                                "passed (inside a Slurm job its end time applies without it; "
                                "SIGTERM or SIGUSR1 take the same way out at the next step)")
    overrides.add_argument("--attempt", type=int, default=1, metavar="N",
                           help="the workflow's attempt at this job: from the second on, "
                                "training starts only if the attempt before it saved a "
                                "checkpoint or stopped to be resubmitted")
    sft = train_commands.add_parser("sft", parents=[overrides],
                                    help="supervised fine-tuning on the assistant turns")
    sft.add_argument("--model", required=True, help="a model folder or hub id")
    sft.add_argument("--data", required=True,
                     help="conversations (messages, tools) or prompt/completion pairs (parquet)")
    sft.add_argument("--out", required=True, help="output folder")
    sft.set_defaults(handler=_train_sft)
    grpo = train_commands.add_parser("grpo", parents=[overrides],
                                     help="GRPO with a judge-computed reward")
    add_episode_options(grpo)
    grpo.add_argument("--model", required=True, help="a model folder or hub id")
    grpo.add_argument("--problems", required=True, help="training problems (parquet)")
    grpo.add_argument("--reward", required=True, help=reward_names())
    grpo.add_argument("--out", required=True, help="output folder")
    grpo.add_argument("--judge-workers", type=int,
                      help="judge workers per node, shared by its training processes "
                           "(default: the CPU cores this job may use)")
    repair = grpo.add_argument_group(
        "repair training", "first attempt, feedback on its failure, second attempt, rewarded "
                           f"on the final program ({repair_setting()} setting)")
    repair.add_argument("--repair", action="store_true", help="train repair episodes")
    add_options(repair, RepairOptions)
    grpo.set_defaults(handler=_train_grpo)


def _add_launch(commands) -> None:
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


def register(commands) -> None:
    _add_model_init(commands)
    _add_train(commands)
    _add_launch(commands)
