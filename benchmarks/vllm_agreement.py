"""How often do vLLM (CPU build) and the transformers backend write the same completion?

Samples a checkpoint at temperature 0 with both backends in every setting (the
config's per-setting token budgets and episode limits, one sample per problem) and
counts the samples whose transcripts agree word for word. For a reasoning completion
that differs, it finds the first token where the two diverge and asks the model
itself (transformers, float32) how far apart its two best next tokens are there:
a gap near zero is a near-tie that float rounding in either backend can flip.

    python benchmarks/vllm_agreement.py CHECKPOINT EVAL_PROBLEMS [--limit N] [--json OUT]

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

import yaml

from codefrontier.tables import read_records
from codefrontier.workflow import command_options

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
    args = parser.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    report = {}
    for setting in config["settings"]:
        samples, seconds = {}, {}
        for backend in ("transformers", "vllm"):
            out = work / f"{setting}-{backend}.parquet"
            seconds[backend] = sample(args.checkpoint, args.problems, out, setting, backend,
                                      config, args.limit)
            samples[backend] = read_records(out)
        pairs = list(zip(samples["transformers"], samples["vllm"], strict=True))
        same = [a["transcript"] == b["transcript"] for a, b in pairs]
        report[setting] = {"samples": len(pairs), "identical": sum(same), "seconds": seconds,
                           "divergences": divergences(args.checkpoint, args.problems, setting,
                                                      pairs, same)}
        print(f"{setting}: {sum(same)} of {len(pairs)} completions identical "
              f"(transformers {seconds['transformers']} s, vLLM {seconds['vllm']} s)")
        for item in report[setting]["divergences"]:
            print("  ", json.dumps(item))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


def divergences(checkpoint: str, problems_path: str, setting: str, pairs, same) -> list[dict]:
    """Reasoning: where each differing pair parts and the model's logit gap there; the
    multi-turn settings: the first message that differs."""
    found = []
    if setting != "reasoning":
        for (a, b), equal in zip(pairs, same, strict=True):
            if not equal:
                turn = next(i for i, (x, y) in enumerate(zip(a["transcript"], b["transcript"],
                                                             strict=False)) if x != y)
                found.append({"problem": a["problem_id"], "first_differing_message": turn})
        return found
    from transformers import AutoModelForCausalLM

    from codefrontier.checkpoint_io import load_tokenizer
    from codefrontier.problems import load_problems
    from codefrontier.settings.reasoning import messages
    from codefrontier.train.rollout import render_prompt

    model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype="float32").eval()
    tokenizer = load_tokenizer(checkpoint)
    problems = {p.problem_id: p for p in load_problems(problems_path)}
    for (a, b), equal in zip(pairs, same, strict=True):
        if not equal:
            prompt = render_prompt(tokenizer, messages(problems[a["problem_id"]]))
            found.append({"problem": a["problem_id"],
                          **first_divergence(model, tokenizer, prompt, a["completion"],
                                             b["completion"])})
    return found


if __name__ == "__main__":
    main()
