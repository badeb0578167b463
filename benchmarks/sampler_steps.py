"""The compacting sampler's two costs on CPU, each against what it replaced.

1. A first turn's prefill with repeated prompts (a GRPO step of the multi-turn settings
   opens 32 episodes on 4 prompts, 8 copies each, and the prompts are long: the tool
   schemas sit in every one): each distinct prompt once, its keys and values copied to
   the repeats (`generation.decode._prefill`), against a prefill of every row.
2. A decode step of a left-padded batch: `grouped_sdpa` (generation/attention.py), which
   hands PyTorch the grouped key-value heads with the mask, against transformers' `sdpa`,
   which repeats the heads (a copy of the cache) at every step when there is a mask.

One thread, the model of a checkpoint, random token ids:

    python benchmarks/sampler_steps.py --model results/tiny/sft [--prompts 4] \
        [--copies 8] [--length 520] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time


def prefill_every_row(model, input_ids, attention_mask, positions, cache):
    return model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions,
                 past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1, :]


def time_prefills(model, args, torch) -> None:
    from codefrontier.generation.decode import _prefill
    from codefrontier.generation.kv_cache import growing_cache

    generator = torch.Generator().manual_seed(0)
    prompts = torch.randint(5, model.config.vocab_size, (args.prompts, args.length),
                            generator=generator)
    input_ids = prompts.repeat_interleave(args.copies, 0)
    mask = torch.ones_like(input_ids)
    positions = torch.arange(args.length).expand_as(input_ids)
    print(f"prefill: {len(input_ids)} rows ({args.prompts} prompts x {args.copies}), "
          f"{args.length} tokens each")
    for name, prefill in (("each distinct prompt once", _prefill),
                          ("every row", prefill_every_row)):
        seconds = []
        for _ in range(args.repeats):
            with torch.inference_mode():
                start = time.perf_counter()
                prefill(model, input_ids, mask, positions, growing_cache(model.config, 1))
                seconds.append(time.perf_counter() - start)
        print(f"  {name:<28} " + ", ".join(f"{s:.3f}" for s in seconds) + " s")


def time_decode_steps(model, args, torch) -> None:
    from codefrontier.generation.attention import GROUPED_SDPA, grouped_attention
    from codefrontier.generation.kv_cache import growing_cache

    rows, steps = args.prompts * args.copies, 50
    generator = torch.Generator().manual_seed(1)
    lengths = torch.randint(args.length * 3 // 4, args.length + 1, (rows,),
                            generator=generator).tolist()
    width = max(lengths)
    input_ids = torch.zeros(rows, width, dtype=torch.long)
    mask = torch.zeros_like(input_ids)
    for row, length in enumerate(lengths):
        input_ids[row, width - length:] = torch.randint(5, model.config.vocab_size, (length,),
                                                        generator=generator)
        mask[row, width - length:] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    print(f"decode: {rows} rows of {min(lengths)}-{width} tokens, left-padded, "
          f"{steps} steps after the prefill")
    with grouped_attention(model):  # registers grouped_sdpa
        pass
    for implementation in (GROUPED_SDPA, "sdpa"):
        model.set_attn_implementation(implementation)
        per_step = []
        for _ in range(args.repeats):
            cache = growing_cache(model.config, headroom=steps)
            step_mask, position = mask, positions[:, -1:]
            with torch.inference_mode():
                model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                      past_key_values=cache, use_cache=True, logits_to_keep=1)
                start = time.perf_counter()
                for _ in range(steps):
                    step_mask = torch.cat([step_mask, step_mask.new_ones(rows, 1)], dim=1)
                    position = position + 1
                    model(input_ids=input_ids[:, -1:], attention_mask=step_mask,
                          position_ids=position, past_key_values=cache, use_cache=True)
                per_step.append((time.perf_counter() - start) / steps)
        print(f"  {implementation:<28} " + ", ".join(f"{1000 * s:.1f}" for s in per_step)
              + " ms per step")
    model.set_attn_implementation("sdpa")


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

    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(args.model).eval()
    time_prefills(model, args, torch)
    time_decode_steps(model, args, torch)


if __name__ == "__main__":
    main()
