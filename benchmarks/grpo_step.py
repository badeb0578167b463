"""Where a GRPO step's time goes: generation, tool calls, judging, forward and backward.

Runs a few GRPO steps of the embedded default's settings from an SFT checkpoint
under cProfile and prints the cumulative time of each phase, per step:

    python benchmarks/grpo_step.py --model results/tiny/sft \
        --problems results/data/train.parquet [--setting tool_use] [--reward kinf] \
        [--steps 4] [--threads 1]

Phases: generation (the compacting sampler, or TRL's `model.generate` where it
samples), the episodes' tool calls (the environments' tools: python, bash, submit),
judging for the reward, the loss's forward, the backward pass and the optimizer
step. A multi-turn step's generation includes every turn. `--set KEY=VALUE`
overrides any GRPOConfig field, as for `codefrontier train grpo`; run it from
another checkout (PYTHONPATH) to compare two versions of the same step.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import tempfile
import time

# (phase, function name as cProfile records it, file-name fragment)
PHASES = [
    ("generation: compacting sampler", "sample_prompts", "generation/decode.py"),
    ("generation: model.generate", "generate", "generation/utils.py"),
    ("tool calls: python", "python", "settings/environments.py"),
    ("tool calls: bash", "bash", "settings/environments.py"),
    ("tool calls: submit", "submit", "settings/environments.py"),
    ("judging (reward)", "__call__", "codefrontier/train/grpo.py"),
    ("loss forward", "compute_loss", "grpo_trainer.py"),
    ("backward", "run_backward", "~"),
    ("optimizer step", "step", "torch/optim/adamw.py"),
]


def phase_times(stats: pstats.Stats) -> dict[str, float]:
    found = {}
    for (filename, _, name), (_, _, _, cumulative, _) in stats.stats.items():
        for phase, function, fragment in PHASES:
            if name == function and fragment in filename:
                found[phase] = found.get(phase, 0.0) + cumulative
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--problems", required=True)
    parser.add_argument("--reward", default="kinf")
    parser.add_argument("--setting", default="reasoning", help="reasoning, tool_use or agentic")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from codefrontier.train.common import parse_overrides
    from codefrontier.train.grpo import run_grpo

    torch.set_num_threads(args.threads)
    overrides = {"max_steps": args.steps, "learning_rate": 1e-4, "temperature": 0.3,
                 "num_generations": 8, "per_device_train_batch_size": 32,
                 "max_completion_length": 200, "save_steps": 10_000,
                 **parse_overrides(args.set)}
    with tempfile.TemporaryDirectory() as scratch:
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        run_grpo(args.model, args.problems, args.reward, f"{scratch}/rl", overrides,
                 judge_workers=args.threads, setting=args.setting)
        profiler.disable()
        total = time.perf_counter() - start
    times = phase_times(pstats.Stats(profiler))
    print(f"{args.steps} GRPO steps ({args.setting}, {args.reward}, {args.threads} thread(s), "
          f"{overrides['per_device_train_batch_size']} completions per step): {total:.1f} s, "
          f"{total / args.steps:.1f} s per step including start-up")
    for phase, _, _ in PHASES:
        if phase not in times:
            continue
        seconds = times[phase]
        print(f"  {phase:<30} {seconds / args.steps:6.2f} s per step ({100 * seconds / total:4.1f}%)")


if __name__ == "__main__":
    main()
