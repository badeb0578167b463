"""Does the load change a GRPO run's rewards? The first step's rewards, judged again.

The first GRPO step samples the same completions every time (the same SFT checkpoint,
problems and seed), so its reward and outcome mix differ between two runs only where
judging does: a program that runs about as long as its time limit. Runs `--repeats`
one-step GRPO runs of `--reward` as the machine is, then as many beside `--factor` − 1
busy loops per core (benchmarks/load.py), and prints each run's mean reward and
outcome mix, then every sample whose reward differed between runs, with its verdicts and CPU
time per test in each:

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

# the default's GRPO fields (config.yaml, models.tiny.rl.trl), one step: written out, not
# read through pipeline.workflow, since the script also runs against older checkouts
# (PYTHONPATH) whose modules sit elsewhere
STEP = {"max_steps": 1, "learning_rate": 1e-4, "temperature": 0.3, "num_generations": 8,
        "per_device_train_batch_size": 32, "max_completion_length": 200, "save_steps": 10_000,
        "seed": 0}


def first_step(model: str, problems: str, reward: str) -> tuple[dict, list[dict]]:
    """The reward log's entry for one GRPO step, and its judged samples."""
    from codefrontier.train import grpo

    # an older checkout (PYTHONPATH) may not log its judged samples
    judged_log = getattr(grpo, "JUDGED_LOG", None)
    with tempfile.TemporaryDirectory() as scratch:
        grpo.run_grpo(model, problems, reward, f"{scratch}/rl", dict(STEP), judge_workers=1,
                      **({"log_samples": True} if judged_log else {}))
        work = Path(f"{scratch}/rl.work")
        entry = json.loads((work / grpo.REWARD_LOG).read_text().splitlines()[0])
        lines = (work / judged_log).read_text().splitlines() if judged_log else []
        return entry, [json.loads(line) for line in lines]


def differing_samples(runs: dict[str, list[dict]]) -> list[str]:
    """The samples whose reward differs between runs: each run's reward, verdicts and CPU
    seconds per test."""
    by_key = {name: {(s["problem_id"], s["sample_id"]): s for s in samples}
              for name, samples in runs.items()}
    keys = sorted(set().union(*by_key.values()))
    lines = []
    for key in keys:
        seen = {name: samples.get(key) for name, samples in by_key.items()}
        if len({s["reward"] for s in seen.values() if s is not None}) > 1:
            lines.append(f"{key[0]} sample {key[1]}:")
            lines += [f"  {name}: reward {s['reward']:.4f}, verdicts {' '.join(s['verdicts'])}, "
                      f"CPU s {' '.join(f'{t:.2f}' for t in s['cpu_s'])}"
                      for name, s in seen.items() if s is not None]
    return lines


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
    judged = {}

    def run(name: str) -> None:
        entry, judged[name] = first_step(args.model, args.problems, args.reward)
        print(f"{name}: {describe(entry)}", flush=True)

    for index in range(args.repeats):
        run(f"as the machine is, run {index + 1}")
    if args.factor > 0:
        with busy_processes(burners_for(args.factor)):
            for index in range(args.repeats):
                run(f"{args.factor - 1} busy loops per core, run {index + 1}")
    print("\n".join(differing_samples(judged)) or "every sample got the same reward in every run")


if __name__ == "__main__":
    main()
