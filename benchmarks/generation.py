"""Sampling a checkpoint with static batches (`model.generate`) against the compacting
sampler (generation/decode.py), which drops rows from the batch as they stop.

Runs `codefrontier sample` in-process twice on the same checkpoint, problems and
settings, once with each decoder behind the transformers backend (rows are sorted by
prompt length in both), then reports the wall time of each and how many samples agree:

    python benchmarks/generation.py --model results/tiny/sft \
        --problems results/data/eval.parquet [--setting tool_use] [--n 3] [--threads 1] \
        [-- --max-tool-calls 2 ...]   # more options of `codefrontier sample`

At temperature 0 (`--temperature 0`) the two must agree on every sample.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def static_batch(model, input_ids, attention_mask, max_new_tokens, stop_ids, sampler,
                 generator=None):
    """The decoder before generation/decode.py: every row stays until the longest ends."""
    import torch

    if generator is not None:
        torch.manual_seed(generator.initial_seed())
    sampling = {"do_sample": True, "temperature": sampler.temperature, "top_p": sampler.top_p,
                "top_k": None} if sampler.temperature > 0 else {"do_sample": False}
    with torch.inference_mode():
        output = model.generate(input_ids=input_ids, attention_mask=attention_mask,
                                max_new_tokens=max_new_tokens, eos_token_id=sorted(stop_ids),
                                pad_token_id=model.config.pad_token_id, **sampling)
    completions = []
    for row in output[:, input_ids.shape[1]:].tolist():
        end = next((k for k, t in enumerate(row) if t in stop_ids), None)
        completions.append(row if end is None else row[:end + 1])
    return completions


def sample(args, decoder, out: Path) -> float:
    from codefrontier import cli
    from codefrontier.generation import decode

    decode.sample_batch = decoder
    command = ["sample", "--model", args.model, "--problems", args.problems,
               "--setting", args.setting, "--n", str(args.n), "--batch-size",
               str(args.batch_size), "--max-new-tokens", str(args.max_new_tokens),
               "--temperature", str(args.temperature), "--out", str(out), "--quiet", *args.rest]
    started = time.perf_counter()
    cli.main(command)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--problems", required=True)
    parser.add_argument("--setting", default="tool_use")
    parser.add_argument("--n", type=int, default=3, help="samples per problem")
    parser.add_argument("--batch-size", type=int, default=80)
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--temperature", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("rest", nargs="*", help="after --: options of `codefrontier sample`")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import pandas as pd
    import torch

    from codefrontier.generation.decode import sample_batch

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as folder:
        runs = {"model.generate (static batch)": (static_batch, Path(folder) / "static.parquet"),
                "compacting sampler": (sample_batch, Path(folder) / "compacting.parquet")}
        seconds = {name: sample(args, decoder, out) for name, (decoder, out) in runs.items()}
        tables = [pd.read_parquet(out) for _, out in runs.values()]
    print(f"\n{args.setting}, n={args.n}, T={args.temperature}, batches of {args.batch_size}, "
          f"{args.threads} thread(s)")
    for (name, wall), table in zip(seconds.items(), tables, strict=True):
        print(f"{name:<30} {wall:6.1f} s  turns {table.turns.sum()}  "
              f"completion tokens {table.completion_tokens.sum()}")
    same = (tables[0].completion == tables[1].completion).sum()
    print(f"samples with the same final answer: {same} of {len(tables[0])}")


if __name__ == "__main__":
    main()
