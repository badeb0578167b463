"""Does the load change a GRPO run's rewards? The first step's rewards, judged again.

The first GRPO step samples the same completions every time (the same SFT checkpoint,
problems and seed), so its reward and outcome mix differ between two runs only where
judging does: a program that runs about as long as its time limit. Runs `--repeats`
one-step GRPO runs of `--reward` as the machine is, then as many beside `--factor` − 1
busy loops per core (benchmarks/load.py), and prints each run's mean reward and
outcome mix:

    python benchmarks/first_step_rewards.py --model results/tiny/sft \
        --problems results/data/train.parquet --reward shaped-cont [--repeats 2] [--factor 3]

Run it from another checkout (PYTHONPATH) to tell a code change from the load: two
versions of the judge that agree under the same load judge the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from load import burners_for, busy_processes

# the default's GRPO fields (config.yaml, models.tiny.rl.trl), one step
STEP = {"max_steps": 1, "learning_rate": 1e-4, "temperature": 0.3, "num_generations": 8,
        "per_device_train_batch_size": 32, "max_completion_length": 200, "save_steps": 10_000,
        "seed": 0}


def first_step(model: str, problems: str, reward: str) -> dict:
    """The reward log's entry for one GRPO step."""
    from codefrontier.train.grpo import REWARD_LOG, run_grpo

    with tempfile.TemporaryDirectory() as scratch:
        run_grpo(model, problems, reward, f"{scratch}/rl", dict(STEP), judge_workers=1)
        return json.loads(Path(f"{scratch}/rl.work/{REWARD_LOG}").read_text().splitlines()[0])


def describe(entry: dict) -> str:
    outcomes = ", ".join(f"{key.removeprefix('outcome/')} {value:.4f}"
                         for key, value in entry.items() if key.startswith("outcome/"))
    return f"mean reward {entry['mean_reward']:.6f}; {outcomes}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--problems", required=True)
    parser.add_argument("--reward", default="shaped-cont")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--factor", type=int, default=3,
                        help="oversubscription of the loaded runs: FACTOR - 1 busy loops per core "
                             "(0: no loaded runs)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    import codefrontier

    torch.set_num_threads(1)
    print(f"codefrontier from {Path(codefrontier.__file__).parent}, reward {args.reward}")
    for index in range(args.repeats):
        print(f"as the machine is, run {index + 1}: "
              f"{describe(first_step(args.model, args.problems, args.reward))}")
    if args.factor > 0:
        with busy_processes(burners_for(args.factor)):
            for index in range(args.repeats):
                print(f"{args.factor - 1} busy loops per core, run {index + 1}: "
                      f"{describe(first_step(args.model, args.problems, args.reward))}")


if __name__ == "__main__":
    main()
