"""Do RL runs with a low-coverage and a full-coverage reward move the verdict mix apart?

On the embedded default (bundled suite, embedded model), through the same
commands the workflow runs: build the train split and its SFT pairs, init the
embedded model, SFT, then one GRPO run per reward from the SFT checkpoint; then
sample every checkpoint on the train split and judge all tests. Prints the
outcome mix per checkpoint. Expected: under R_k with low k (slow programs pass
the rewarded tests) optimization failures stay or grow; under R_inf they shrink.

    python benchmarks/reward_separation.py [--workdir DIR] [--rewards k2 kinf]
        [--sft-epochs 80] [--grpo-steps 20] [--samples 8]

Every stage is skipped when its output exists, so a rerun continues.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

OUTCOMES = ("correct", "optimization_failure", "correctness_failure", "format_error")


def run(*args, done: Path) -> None:
    if done.exists():
        return
    start = time.perf_counter()
    command = [sys.executable, "-m", "codefrontier.cli", *map(str, args)]
    print("$", " ".join(command[2:]), flush=True)
    subprocess.run(command, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    print(f"  {time.perf_counter() - start:.0f} s", flush=True)


def mix(verdicts: Path) -> Counter:
    return Counter(row["outcome"] for row in pq.read_table(verdicts).to_pylist())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path("results/separation"))
    parser.add_argument("--rewards", nargs="+", default=["k2", "kinf"])
    parser.add_argument("--sft-epochs", type=int, default=80)
    parser.add_argument("--sft-lr", type=float, default=3e-3)
    parser.add_argument("--grpo-steps", type=int, default=20)
    parser.add_argument("--grpo-lr", type=float, default=1e-4)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--samples", type=int, default=8, help="per problem, for the mix")
    parser.add_argument("--max-new-tokens", type=int, default=384)
    args = parser.parse_args()

    w = args.workdir
    w.mkdir(parents=True, exist_ok=True)
    train, pairs = w / "train.parquet", w / "sft.parquet"
    run("problems", "build", "--split", "train", "--out", train, done=train)
    run("problems", "sft", "--split", "train", "--out", pairs, done=pairs)
    run("model", "init", "--out", w / "init", "--texts", train, pairs, done=w / "init")
    run("train", "sft", "--model", w / "init", "--data", pairs, "--out", w / "sft",
        "--set", f"num_train_epochs={args.sft_epochs}", "--set", f"learning_rate={args.sft_lr}",
        "--set", "per_device_train_batch_size=8", "--set", "logging_steps=20",
        "--set", "save_steps=100", done=w / "sft")
    checkpoints = {"sft": w / "sft"}
    for reward in args.rewards:
        out = w / f"rl-{reward}"
        run("train", "grpo", "--model", w / "sft", "--problems", train, "--reward", reward,
            "--out", out, "--set", f"max_steps={args.grpo_steps}",
            "--set", f"learning_rate={args.grpo_lr}", "--set", f"temperature={args.temperature}",
            "--set", f"max_completion_length={args.max_new_tokens}", done=out)
        checkpoints[f"rl-{reward}"] = out
    rows = []
    for name, folder in checkpoints.items():
        samples, verdicts = w / f"{name}.samples.parquet", w / f"{name}.verdicts.parquet"
        run("sample", "--model", folder, "--problems", train, "--n", args.samples,
            "--temperature", args.temperature, "--max-new-tokens", args.max_new_tokens,
            "--batch-size", 32, "--seed", 1, "--out", samples, "--quiet", done=samples)
        run("judge", "--problems", train, "--samples", samples, "--out", verdicts,
            "--quiet", done=verdicts)
        rows.append((name, mix(verdicts)))
    print(f"\noutcome mix on the train split ({args.samples} samples per problem, "
          f"T={args.temperature}):\n")
    print("| checkpoint | " + " | ".join(OUTCOMES) + " |")
    print("|---" * (len(OUTCOMES) + 1) + "|")
    for name, counts in rows:
        total = sum(counts.values())
        print(f"| {name} | " + " | ".join(f"{counts[o] / total:.3f}" for o in OUTCOMES) + " |")


if __name__ == "__main__":
    main()
