"""How often do vLLM (CPU build) and the transformers backend write the same completion?

Samples a checkpoint at temperature 0 with both backends in every setting (the
config's per-setting token budgets and episode limits, one sample per problem) and
counts the samples whose transcripts agree word for word. Where a reasoning
completion or an episode's first model turn differs, it finds the first token where
the two diverge and asks the model itself (transformers, float32) how far apart its
two best next tokens are there: a gap near zero is a near-tie that rounding in either
backend can flip (vLLM's CPU engine computes in bfloat16 by default, the transformers
backend in the checkpoint's float32).

    python benchmarks/vllm_agreement.py CHECKPOINT EVAL_PROBLEMS [--limit N] [--json OUT]
                                        [--reuse]

e.g. results/tiny/sft and results/data/eval.parquet of a finished main job.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from codefrontier.base.tables import read_records
from codefrontier.pipeline.configfiles import compose
from codefrontier.pipeline.workflow import command_options

ROOT = Path(__file__).resolve().parents[1]


def first_divergence(model, tokenizer, prompt_ids, ours: str, theirs: str) -> dict:
    """Where two completions of one prompt part: the token index, both tokens, and the
    model's logit gap between its two best tokens there."""
    import torch

    a = tokenizer(ours, add_special_tokens=False)["input_ids"]
    b = tokenizer(theirs, add_special_tokens=False)["input_ids"]
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    with torch.no_grad():
        logits = model(torch.tensor([prompt_ids + a[:at]])).logits[0, -1].double()
    top = torch.topk(logits, 2)
    return {"token": at, "transformers": tokenizer.decode(a[at:at + 1]),
            "vllm": tokenizer.decode(b[at:at + 1]),
            "top2_logit_gap": round(float(top.values[0] - top.values[1]), 6)}


def sample(checkpoint: str, problems: str, out: Path, setting: str, backend: str,
           config: dict, limit: int | None) -> float:
    """`codefrontier sample` with the sample rule's options for the setting, at
    temperature 0 with one sample per problem, on `backend`; its wall seconds."""
    options = shlex.split(command_options(config, "sample", setting=setting))
    command = [sys.executable, "-m", "codefrontier.cli", "sample", "--model", checkpoint,
               "--problems", problems, "--out", str(out), "--setting", setting, *options,
               "--backend", backend, "--n", "1", "--temperature", "0", "--quiet",
               *(["--limit", str(limit)] if limit else [])]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return round(time.perf_counter() - start, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("problems")
    parser.add_argument("--limit", type=int, default=None, help="the first N problems")
    parser.add_argument("--config", default=str(ROOT / "config.yaml"))
    parser.add_argument("--work", default="vllm-agreement", help="where the samples go")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--reuse", action="store_true",
                        help="keep samples already in --work (only the analysis runs again)")
    args = parser.parse_args()
    config = compose([args.config], ROOT / "config.yaml").values  # a grid or an overlay
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    report = {}
    for setting in config["settings"]:
        samples, seconds = {}, {}
        for backend in ("transformers", "vllm"):
            out = work / f"{setting}-{backend}.parquet"
            seconds[backend] = None if args.reuse and out.exists() else \
                sample(args.checkpoint, args.problems, out, setting, backend, config, args.limit)
            samples[backend] = read_records(out)
        pairs = list(zip(samples["transformers"], samples["vllm"], strict=True))
        same = [a["transcript"] == b["transcript"] for a, b in pairs]
        report[setting] = {"samples": len(pairs), "identical": sum(same), "seconds": seconds,
                           "divergences": divergences(args.checkpoint, args.problems, setting,
                                                      config, pairs, same)}
        print(f"{setting}: {sum(same)} of {len(pairs)} completions identical "
              f"(transformers {seconds['transformers']} s, vLLM {seconds['vllm']} s)")
        for item in report[setting]["divergences"]:
            print("  ", json.dumps(item))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


def first_turn_prompts(setting: str, config: dict, problems: dict,
                       tokenizer) -> dict[str, list[int]]:
    """Per problem, the token ids of a multi-turn setting's first model turn: its
    messages with the environment's tools, as the episode runner renders them."""
    from codefrontier.judge import JudgePool
    from codefrontier.pipeline.workflow import episode_limits
    from codefrontier.settings.environments import end_episode
    from codefrontier.settings.episodes import environment_tools
    from codefrontier.settings.registry import get_setting

    chosen = get_setting(setting, episode_limits(config, setting))
    with JudgePool(workers=1) as pool:
        environment = chosen.environment(problems, pool)
        tools = environment_tools(environment)
        end_episode(environment)
    rendered = {}
    for pid, problem in problems.items():
        text = tokenizer.apply_chat_template(chosen.messages(problem), tools=tools,
                                             tokenize=False, add_generation_prompt=True)
        rendered[pid] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return rendered


def divergences(checkpoint: str, problems_path: str, setting: str, config: dict, pairs,
                same) -> list[dict]:
    """Where each differing pair parts and the model's logit gap between its two best
    tokens there: the completion of a reasoning sample, the first differing message of
    an episode (the gap where that message is the first model turn; a later turn's
    prompt holds tool results the transcript shows only as text)."""
    from transformers import AutoModelForCausalLM

    from codefrontier.models.checkpoint_io import load_tokenizer
    from codefrontier.problems.schema import load_problems
    from codefrontier.settings.reasoning import messages
    from codefrontier.train.rollout import render_prompt

    model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype="float32").eval()
    tokenizer = load_tokenizer(checkpoint)
    problems = {p.problem_id: p for p in load_problems(problems_path)}
    if setting == "reasoning":
        first_turns = {pid: render_prompt(tokenizer, messages(p)) for pid, p in problems.items()}
    else:
        first_turns = first_turn_prompts(setting, config, problems, tokenizer)
    found = []
    for (a, b), equal in zip(pairs, same, strict=True):
        if equal:
            continue
        item = {"problem": a["problem_id"]}
        if setting == "reasoning":
            ours, theirs = a["completion"], b["completion"]
        else:
            turn = next(i for i, (x, y) in enumerate(zip(a["transcript"], b["transcript"],
                                                         strict=False)) if x != y)
            item["first_differing_message"] = turn
            if turn != 1:
                found.append(item)
                continue
            ours, theirs = a["transcript"][1]["content"], b["transcript"][1]["content"]
        found.append({**item, **first_divergence(model, tokenizer, first_turns[a["problem_id"]],
                                                 ours, theirs)})
    return found


if __name__ == "__main__":
    main()
