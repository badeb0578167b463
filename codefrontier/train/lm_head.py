"""The training loss's LM head on devices without Triton: the scored positions only.

TRL's trainers patch the model with a fused LM head (`trl.trainer.utils.add_fused_lm_head`)
that returns each position's log-probability of its label without materializing the
`(tokens, vocabulary)` logits. On a device with Triton it projects only the positions
whose label counts; elsewhere (CPU) it projects every position, the prompt, tool results
and padding included, in tiles folded by torch ops, and recomputes the tiles in the
backward pass. Where the logits of the counted positions are small (the embedded model:
a vocabulary of 4,096), projecting those positions alone with a plain matmul and
log-softmax makes a forward and backward pass of the embedded model 1.3-1.9 times faster
on a CPU (`benchmarks/lm_head.py`: 600 tokens, all to a quarter of them counted), for the
same values to float rounding (tests/test_lm_head.py).

`compact_lm_head` wraps a model that TRL has patched: calls with `fused_lm_head=True` on
a device without Triton, whose counted positions' logits fit in `LOGITS_BUDGET`, take the
plain path; everything else (a GPU, a large vocabulary with many tokens, logit scaling
or soft-capping, mixture-of-experts router logits) goes to TRL's own head.
"""

from __future__ import annotations

import functools

# logits held at once by the plain path (elements, float32: 128 MB); past it, TRL's head
LOGITS_BUDGET = 2 ** 25

# The per-token fields each TRL trainer asks of its fused head
SFT_OUTPUTS = ("log_probs", "entropy", "is_top1")
GRPO_OUTPUTS = ("log_probs", "entropy")


def compact_lm_head(model, temperature: float = 1.0, outputs: tuple[str, ...] = ("log_probs",),
                    budget: int = LOGITS_BUDGET) -> None:
    """Route `model`'s fused-head calls (patched by TRL with this `temperature` and these
    `outputs`) through the plain projection of the counted positions where it serves."""
    try:  # TRL's internals as of 1.16; another TRL keeps its own head
        from trl.kernels.chunked_logprob import _use_triton
        from trl.trainer.utils import FusedCausalLMOutput
    except ImportError:
        return
    if getattr(model, "get_base_model", None) is not None and hasattr(model, "peft_config"):
        model = model.get_base_model()
    text_config = model.config.get_text_config()
    if getattr(text_config, "final_logit_softcapping", None) or any(
            getattr(text_config, name, None) not in (None, 1, 1.0)
            for name in ("logit_scale", "output_multiplier", "lm_head_multiplier", "logits_scaling")):
        return  # logits transformed before the softmax: TRL's head knows how
    if getattr(text_config, "output_router_logits", False):
        return  # a mixture of experts adds its router's loss: TRL's head does
    trl_forward = model.forward

    @functools.wraps(trl_forward)
    def forward(*args, fused_lm_head=False, labels=None, shift_labels=None,
                num_items_in_batch=None, **kwargs):
        counted = labels if shift_labels is None else shift_labels
        if fused_lm_head and _serves(model, counted, budget, kwargs, _use_triton):
            return FusedCausalLMOutput(**_plain_head(
                model, args, kwargs, labels, shift_labels, num_items_in_batch, temperature,
                outputs))
        return trl_forward(*args, fused_lm_head=fused_lm_head, labels=labels,
                           shift_labels=shift_labels, num_items_in_batch=num_items_in_batch,
                           **kwargs)

    model.forward = forward


def _serves(model, labels, budget: int, kwargs: dict, use_triton) -> bool:
    head = model.get_output_embeddings()
    return (labels is not None and not use_triton(head.weight.device)
            and not kwargs.get("output_router_logits")
            and int((labels != -100).sum()) * head.weight.size(0) <= budget)


def _plain_head(model, args, kwargs, labels, shift_labels, num_items_in_batch, temperature,
                outputs) -> dict:
    """The fields of TRL's FusedCausalLMOutput, the counted positions projected with a
    plain matmul."""
    import torch

    kwargs["use_cache"] = False
    hidden = model.base_model(*args, **kwargs).last_hidden_state
    if shift_labels is None:
        hidden, labels = hidden[:, :-1], labels[:, 1:]
    else:
        labels = shift_labels
    head = model.get_output_embeddings()
    labels = labels.to(head.weight.device)
    mask = labels != -100
    targets = labels[mask]
    logits = head(hidden.to(head.weight.device)[mask]).float() / temperature
    log_softmax = logits.log_softmax(-1)
    fields = {"log_probs": log_softmax.gather(-1, targets[:, None]).squeeze(-1)}
    if "entropy" in outputs:
        fields["entropy"] = -(log_softmax.exp() * log_softmax).sum(-1)
    with torch.no_grad():
        if "is_top1" in outputs:
            fields["is_top1"] = logits.argmax(-1) == targets  # the first maximum, as TRL's
        if "mean_logits" in outputs:
            fields["mean_logits"] = logits.mean(-1)
        if "log_sum_sq_probs" in outputs:
            fields["log_sum_sq_probs"] = torch.logsumexp(2 * log_softmax, -1)
    # masked_scatter keeps an all-masked batch connected to the model (a zero gradient)
    per_token = {name: value.new_zeros(mask.shape).masked_scatter(mask, value)
                 for name, value in fields.items()}
    count = mask.sum().clamp(min=1) if num_items_in_batch is None else num_items_in_batch
    return {"loss": -per_token["log_probs"].sum() / count, **per_token, "label_mask": mask}
