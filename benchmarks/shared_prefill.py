"""A first turn's prefill with repeated prompts: each distinct prompt once, or every row.

A GRPO step of the multi-turn settings opens 32 episodes on 4 prompts (8 copies each),
and the prompts are long (the tool schemas sit in every one). The sampler prefills each
distinct prompt once and copies its keys and values to the repeats
(`generation.decode._prefill`); this times that against a prefill of every row, on one
thread, with the model of a checkpoint and random prompts of the given length:

    python benchmarks/shared_prefill.py --model results/tiny/sft [--prompts 4] \
        [--copies 8] [--length 520] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time


def prefill_every_row(model, input_ids, attention_mask, positions, cache):
    return model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions,
                 past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1, :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--length", type=int, default=520, help="tokens per prompt")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import torch
    from transformers import AutoModelForCausalLM

    from codefrontier.generation.decode import _prefill
    from codefrontier.generation.kv_cache import growing_cache

    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(args.model).eval()
    generator = torch.Generator().manual_seed(0)
    prompts = torch.randint(5, model.config.vocab_size, (args.prompts, args.length),
                            generator=generator)
    input_ids = prompts.repeat_interleave(args.copies, 0)
    mask = torch.ones_like(input_ids)
    positions = torch.arange(args.length).expand_as(input_ids)
    print(f"{len(input_ids)} rows ({args.prompts} prompts x {args.copies}), "
          f"{args.length} tokens each, one thread:")
    for name, prefill in (("each distinct prompt once", _prefill),
                          ("every row", prefill_every_row)):
        seconds = []
        for _ in range(args.repeats):
            cache = growing_cache(model.config, headroom=1)
            with torch.inference_mode():
                start = time.perf_counter()
                prefill(model, input_ids, mask, positions, cache)
                seconds.append(time.perf_counter() - start)
        print(f"  {name:<26} " + ", ".join(f"{s:.3f}" for s in seconds) + " s")


if __name__ == "__main__":
    main()
