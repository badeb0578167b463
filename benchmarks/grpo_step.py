"""Where a GRPO step's time goes: generation, tool calls, judging, forward and backward.

Runs a few GRPO steps of the embedded default's settings from an SFT checkpoint
under cProfile and prints the cumulative time of each phase, per step:

    python benchmarks/grpo_step.py --model results/tiny/sft \
        --problems results/data/train.parquet [--setting tool_use] [--reward kinf] \
        [--steps 4] [--threads 1] [--turns]

Phases: generation (the compacting sampler, or TRL's `model.generate` where it
samples), the episodes' tool calls (the environments' tools: python, bash, submit),
judging for the reward, the loss's forward, the backward pass and the optimizer
step. A multi-turn step's generation includes every turn; `--turns` prints each call of
the sampler (a turn of every episode at once): its rows, context width, tokens written
and milliseconds per decode step. `--set KEY=VALUE`
overrides any GRPOConfig field, as for `codefrontier train grpo`; run it from
another checkout (PYTHONPATH) to compare two versions of the same step.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import tempfile
import time
from pathlib import Path

# (phase, function name as cProfile records it, file-name fragment)
PHASES = [
    ("generation: compacting sampler", "sample_prompts", "generation/decode.py"),
    ("generation: model.generate", "generate", "generation/utils.py"),
    ("tool calls: python", "python", "settings/environments.py"),
    ("tool calls: bash", "bash", "settings/environments.py"),
    ("tool calls: submit", "submit", "settings/environments.py"),
    ("judging (reward)", "__call__", "codefrontier/train/grpo.py"),
    ("loss forward", "compute_loss", "grpo_trainer.py"),
    ("backward", "_engine_run_backward", "torch/autograd/graph.py"),
    ("optimizer step", "step", "torch/optim/adam.py"),  # AdamW's step is Adam's
]


# a multi-turn rollout's turns: one call of the policy backend each, every episode's turn at once
TURN = ("generate", "codefrontier/train/multi_turn.py")


def phase_times(stats: pstats.Stats) -> dict[str, float]:
    found = {}
    for (filename, _, name), (_, _, _, cumulative, _) in stats.stats.items():
        for phase, function, fragment in PHASES:
            if name == function and fragment in filename:
                found[phase] = found.get(phase, 0.0) + cumulative
    return found


def logged_steps(checkpoint: Path) -> list[dict]:
    """The trainer's log entries of its steps (TRL's `num_tokens`, `step_time`, ...)."""
    state = checkpoint / "trainer_state.json"
    if not state.exists():
        return []
    return [entry for entry in json.loads(state.read_text())["log_history"]
            if "step_time" in entry]


def turn_calls(stats: pstats.Stats) -> int:
    """How many turns the multi-turn rollouts sampled (0 for a single-turn setting)."""
    return sum(calls for (filename, _, name), (_, calls, _, _, _) in stats.stats.items()
               if name == TURN[0] and filename.endswith(TURN[1]))


def print_sampler_calls() -> None:
    """Wrap the compacting sampler's batch loop so that each call prints its figures."""
    from codefrontier.generation import decode

    sample_batch = decode.sample_batch

    def timed(model, input_ids, attention_mask, max_new_tokens, *args, **kwargs):
        start = time.perf_counter()
        generated = sample_batch(model, input_ids, attention_mask, max_new_tokens, *args, **kwargs)
        seconds = time.perf_counter() - start
        lengths = [len(ids) for ids in generated]
        print(f"\n  sampler call: {len(lengths)} rows, context {attention_mask.shape[1]} "
              f"columns, {sum(lengths)} tokens written ({sum(lengths) / len(lengths):.0f} a row, "
              f"longest {max(lengths)}), {seconds:.2f} s, "
              f"{1000 * seconds / max(lengths):.1f} ms per decode step", flush=True)
        return generated

    decode.sample_batch = timed


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
    parser.add_argument("--turns", action="store_true",
                        help="print each sampler call (rows, context, tokens, ms per step)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from codefrontier.train.common import parse_overrides
    from codefrontier.train.grpo import run_grpo

    torch.set_num_threads(args.threads)
    if args.turns:
        print_sampler_calls()
    overrides = {"max_steps": args.steps, "learning_rate": 1e-4, "temperature": 0.3,
                 "num_generations": 8, "per_device_train_batch_size": 32,
                 "max_completion_length": 200, **parse_overrides(args.set),
                 "save_steps": args.steps}  # one checkpoint, at the end: its log history

    with tempfile.TemporaryDirectory() as scratch:
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        run_grpo(args.model, args.problems, args.reward, f"{scratch}/rl", overrides,
                 judge_workers=args.threads, setting=args.setting)
        profiler.disable()
        total = time.perf_counter() - start
        logged = logged_steps(Path(f"{scratch}/rl.work/checkpoint-{args.steps}"))
    stats = pstats.Stats(profiler)
    times = phase_times(stats)
    turns = turn_calls(stats)
    episodes = overrides["per_device_train_batch_size"]
    print(f"{args.steps} GRPO steps ({args.setting}, {args.reward}, {args.threads} thread(s), "
          f"{episodes} completions per step): {total:.1f} s, "
          f"{total / args.steps:.1f} s per step including start-up")
    for phase, _, _ in PHASES:
        if phase not in times:
            continue
        seconds = times[phase]
        print(f"  {phase:<30} {seconds / args.steps:6.2f} s per step ({100 * seconds / total:4.1f}%)")
    if len(logged) > 1:  # the first step also warms up
        steady = logged[1:]
        seconds = sum(entry["step_time"] for entry in steady) / len(steady)
        sampled = episodes * sum(e["completions/mean_length"] for e in steady) / len(steady)
        print(f"  steps 2-{len(logged)}: {seconds:.2f} s per step; "
              f"{logged[-1]['num_tokens'] / len(logged):.0f} tokens per step in the loss's rows "
              f"(each row's prompt and sampled tokens: tool results left out, no padding); "
              f"{sampled:.0f} tokens sampled per step, {1000 * seconds / sampled:.2f} ms per "
              f"sampled token")
    if turns:
        sampled = times.get(PHASES[0][0], 0.0)
        print(f"  {turns / args.steps:.1f} turns per step (every episode's turn at once), "
              f"{sampled / turns:.2f} s of generation per turn")


if __name__ == "__main__":
    main()
