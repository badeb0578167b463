"""Attention for sampling on CPU without copying the KV cache at every step.

transformers' `sdpa` attention hands grouped key-value heads (Qwen2: several query heads
per key-value head) to PyTorch's kernel as they are only when no attention mask is
given; with a mask (any left-padded batch, i.e. every batch of the compacting sampler)
it first repeats each key-value head for its query heads, a copy of the whole cache in
every layer at every decode step. On CPU PyTorch's kernel takes a mask and grouped heads
together, so `grouped_sdpa` passes both as they are: the same attention (tests), and a
decode step of 32 rows over a ~500-token context in half the time here
(benchmarks/sampler_steps.py).
"""

from __future__ import annotations

import contextlib

GROUPED_SDPA = "grouped_sdpa"
_registered = False


def grouped_sdpa(module, query, key, value, attention_mask, dropout=0.0, scaling=None,
                 is_causal=None, **_):
    """transformers' attention-function signature; PyTorch's SDPA with grouped heads."""
    import torch

    causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, dropout_p=dropout, scale=scaling,
        # transformers' masks leave the causal mask out only where it is trivial
        is_causal=bool(causal and attention_mask is None and query.shape[2] > 1),
        enable_gqa=query.shape[1] != key.shape[1])
    return output.transpose(1, 2).contiguous(), None


def _register() -> None:
    global _registered
    if not _registered:
        from transformers import AttentionInterface, AttentionMaskInterface
        from transformers.masking_utils import sdpa_mask

        AttentionInterface.register(GROUPED_SDPA, grouped_sdpa)
        AttentionMaskInterface.register(GROUPED_SDPA, sdpa_mask)
        _registered = True


@contextlib.contextmanager
def grouped_attention(model):
    """While sampling: `model` on CPU with `sdpa` attention attends with `grouped_sdpa`;
    any other model (a GPU, flash attention, eager) is left as it is."""
    implementation = getattr(model.config, "_attn_implementation", None)
    on_cpu = next(model.parameters()).device.type == "cpu"
    if implementation != "sdpa" or not on_cpu:
        yield
        return
    _register()
    model.set_attn_implementation(GROUPED_SDPA)
    try:
        yield
    finally:
        model.set_attn_implementation(implementation)
