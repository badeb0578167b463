"""GRPO's loss forward without most of its padding.

GRPOTrainer scores a batch as one tensor: prompts padded on the left to the longest
prompt, completions on the right to the longest completion, so every row costs the
longest prompt plus the longest completion in the forward and the backward pass. A
multi-turn batch mixes episodes of one turn with episodes that ran to the token budget,
and a reasoning batch short answers with long ones: a third or more of the scored
tokens were padding. `TrimmedRows` scores the rows in micro-batches of similar
completion length, each cut to the columns its own rows use, and puts the
log-probabilities (and entropies) back in the batch's order and width.

Each row's tokens are contiguous (left padding, prompt, completion, right padding), so
cutting columns moves a row's tokens left by the same number of columns; with rotary
position embeddings (Qwen2 and the embedded model) attention depends only on the
distance between positions, which that leaves as it was. The values agree with TRL's
own to float rounding (tests/test_trimmed_rows.py).
"""

from __future__ import annotations

# rows per micro-batch when TRL asks for no chunking of its own
MICRO_BATCH_ROWS = 8


def micro_batches(prompt_lens: list[int], completion_lens: list[int], rows: int
                  ) -> list[list[int]]:
    """Row indices in groups of at most `rows`, rows of similar completion length (then
    prompt length) together, so that each group's own width holds little padding."""
    order = sorted(range(len(prompt_lens)), key=lambda i: (completion_lens[i], prompt_lens[i]))
    return [order[start:start + rows] for start in range(0, len(order), rows)]


class TrimmedRows:
    """Mixin before GRPOTrainer (`trimmed(GRPOTrainer)`): its loss forward, and its
    log-probabilities of old and reference policies, computed on trimmed micro-batches
    (module docstring). Batches with images or a MoE auxiliary loss keep TRL's own."""

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask,
                                           logits_to_keep, batch_size=None,
                                           compute_entropy=False, compute_aux_loss=False,
                                           **multimodal):
        own = super()._get_per_token_logps_and_entropies
        if compute_aux_loss or any(value is not None for value in multimodal.values()):
            return own(model, input_ids, attention_mask, logits_to_keep, batch_size,
                       compute_entropy, compute_aux_loss, **multimodal)
        import torch

        prompt_width = input_ids.size(1) - logits_to_keep
        prompt_lens = attention_mask[:, :prompt_width].sum(1).tolist()
        completion_lens = attention_mask[:, prompt_width:].sum(1).tolist()
        logps = torch.zeros((input_ids.size(0), logits_to_keep), device=input_ids.device)
        entropies = torch.zeros_like(logps) if compute_entropy else None
        parts = []
        for rows in micro_batches(prompt_lens, completion_lens, batch_size or MICRO_BATCH_ROWS):
            start = prompt_width - max(prompt_lens[i] for i in rows)
            kept = max(1, max(completion_lens[i] for i in rows))  # completion columns
            index = torch.tensor(rows, device=input_ids.device)
            part_logps, part_entropies, _ = own(
                model, input_ids[index, start:prompt_width + kept],
                attention_mask[index, start:prompt_width + kept], kept,
                compute_entropy=compute_entropy)
            parts.append((index, kept, part_logps, part_entropies))
        # index_put keeps the graph: the loss reaches every micro-batch's forward
        for index, kept, part_logps, part_entropies in parts:
            where = (index[:, None], torch.arange(kept, device=index.device)[None, :])
            logps = logps.to(part_logps.dtype).index_put(where, part_logps)
            if entropies is not None:
                entropies = entropies.to(part_entropies.dtype).index_put(where, part_entropies)
        return logps, entropies, None


def trimmed(trainer_class: type) -> type:
    """`trainer_class` (GRPOTrainer or a subclass) scoring trimmed micro-batches."""
    return type(trainer_class.__name__, (TrimmedRows, trainer_class), {})
