"""The training loss's LM head on a CPU: TRL's fused head against the plain projection of
the counted positions (codefrontier/train/lm_head.py).

    python benchmarks/lm_head.py [--threads 2] [--repeats 20]

Times one forward and backward pass of a model of the embedded default's size (vocabulary
4,096, hidden 192, 4 layers, random weights) on a row of 600 tokens, for several shares of
counted labels (an SFT conversation counts its assistant turns only, a multi-turn GRPO row
not its tool results), with each head. Prints a Markdown table in milliseconds.
"""

from __future__ import annotations

import argparse
import time

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from trl.trainer import add_fused_lm_head

from codefrontier.train.lm_head import SFT_OUTPUTS, compact_lm_head

TOKENS = 600


def model(compact: bool) -> Qwen2ForCausalLM:
    torch.manual_seed(0)
    policy = Qwen2ForCausalLM(Qwen2Config(
        vocab_size=4096, hidden_size=192, intermediate_size=512, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048))
    add_fused_lm_head(policy, outputs=SFT_OUTPUTS)
    if compact:
        compact_lm_head(policy, outputs=SFT_OUTPUTS)
    return policy


def step_ms(policy, ids, labels, repeats: int) -> float:
    def step():
        policy.zero_grad()
        policy(input_ids=ids, labels=labels, fused_lm_head=True).loss.backward()

    for _ in range(3):
        step()
    start = time.perf_counter()
    for _ in range(repeats):
        step()
    return (time.perf_counter() - start) / repeats * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    heads = {"TRL's fused head": model(False), "plain, counted positions": model(True)}
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 4096, (1, TOKENS), generator=generator)
    print(f"forward + backward, one row of {TOKENS} tokens, {args.threads} thread(s), ms\n")
    print("| counted labels | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(heads))
    for share in (1.0, 0.5, 0.25):
        labels = ids.clone()
        labels[0, :int(TOKENS * (1 - share))] = -100
        times = [step_ms(policy, ids, labels, args.repeats) for policy in heads.values()]
        print(f"| {share:.0%} | " + " | ".join(f"{t:.1f}" for t in times) + " |")


if __name__ == "__main__":
    main()
