"""GRPO's loss forward without repeated prompts and without most of its padding.

GRPOTrainer scores a batch as one tensor: prompts padded on the left to the longest
prompt, completions on the right to the longest completion, so every row costs the
longest prompt plus the longest completion in the forward and the backward pass. Two
things make most of those tokens waste here:

- A GRPO group's rows (`num_generations` completions of one prompt) repeat the same
  prompt, and multi-turn prompts are long (the chat template's tool schemas: about 510
  tokens in tool use against some 200 of completion), so most of a multi-turn batch's
  tokens were copies of four prompts.
- A multi-turn batch mixes episodes of one turn with episodes that ran to the token
  budget, and a reasoning batch short answers with long ones: a third or more of the
  scored tokens were padding.

`TrimmedRows` runs each distinct prompt through the model once, its keys and values
kept with their graph; the rows that share it are then scored in micro-batches of
similar completion length, each cut to the columns its own rows use, attending to the
prompt's keys and values (expanded to the micro-batch's rows, so the gradient of every
row reaches the one prompt forward). The log-probabilities (and entropies) go back in
the batch's order and width.

Cutting a row's padding moves its tokens left, and the shared prompt starts at position
0 wherever the row's prompt started; with rotary position embeddings (Qwen2 and the
embedded model) attention depends only on the distance between positions, which that
leaves as it was. The values and gradients agree with TRL's own to float rounding
(tests/test_trimmed_rows.py). Under gradient checkpointing transformers drops a layer's
key-value cache, so there every row is scored with its prompt (trimmed micro-batches
only).
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


def prompt_groups(prompts: list[tuple[int, ...]]) -> list[list[int]]:
    """Row indices grouped by identical prompt tokens, in order of first appearance."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for row, prompt in enumerate(prompts):
        groups.setdefault(prompt, []).append(row)
    return list(groups.values())


class TrimmedRows:
    """Mixin before GRPOTrainer (`trimmed(GRPOTrainer)`): its loss forward, and its
    log-probabilities of old and reference policies, computed once per distinct prompt
    on trimmed micro-batches (module docstring). Batches with images or a MoE auxiliary
    loss keep TRL's own."""

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask,
                                           logits_to_keep, batch_size=None,
                                           compute_entropy=False, compute_aux_loss=False,
                                           **multimodal):
        own = super()._get_per_token_logps_and_entropies
        if compute_aux_loss or any(value is not None for value in multimodal.values()):
            return own(model, input_ids, attention_mask, logits_to_keep, batch_size,
                       compute_entropy, compute_aux_loss, **multimodal)
        prompt_width = input_ids.size(1) - logits_to_keep
        prompt_lens = attention_mask[:, :prompt_width].sum(1).tolist()
        completion_lens = attention_mask[:, prompt_width:].sum(1).tolist()
        rows_per_batch = batch_size or MICRO_BATCH_ROWS
        if self._shares_prompts(model):
            padded_prompts = input_ids[:, :prompt_width].tolist()  # one copy to the host
            prompts = [tuple(tokens[prompt_width - length:])
                       for tokens, length in zip(padded_prompts, prompt_lens, strict=True)]
            parts = [part for rows in prompt_groups(prompts)
                     for part in self._score_shared_prompt(
                         model, input_ids[rows[0], prompt_width - prompt_lens[rows[0]]:prompt_width],
                         input_ids[:, prompt_width:],
                         attention_mask[:, prompt_width:], rows, completion_lens,
                         rows_per_batch, compute_entropy)]
        else:
            parts = [_score_rows(own, model, input_ids, attention_mask, prompt_width, rows,
                                 prompt_lens, completion_lens, compute_entropy)
                     for rows in micro_batches(prompt_lens, completion_lens, rows_per_batch)]
        return _in_batch_order(parts, input_ids.size(0), logits_to_keep, compute_entropy)

    def _shares_prompts(self, model) -> bool:
        """Whether prompts can be run once and their keys and values reused: not under
        gradient checkpointing, which drops the cache inside each layer."""
        return not self.accelerator.unwrap_model(model).is_gradient_checkpointing

    def _score_shared_prompt(self, model, prompt, completion_ids, completion_mask, rows,
                             completion_lens, rows_per_batch, compute_entropy):
        """The rows of one prompt (`prompt`: its tokens, a 1-d tensor): the prompt but its
        last token once, then the rows in micro-batches that start from that last token."""
        import torch
        from transformers import DynamicCache

        inner = self.accelerator.unwrap_model(model)
        device = completion_ids.device
        prompt = prompt[None, :]
        cache = None
        with self.accelerator.autocast():
            if prompt.size(1) > 1:
                cache = DynamicCache(config=inner.config)
                inner.base_model(input_ids=prompt[:, :-1], past_key_values=cache,
                                 use_cache=True)
            parts = []
            lens = [completion_lens[i] for i in rows]
            for batch in micro_batches([0] * len(rows), lens, rows_per_batch):
                index = torch.tensor([rows[i] for i in batch], device=device)
                kept = max(1, max(lens[i] for i in batch))
                ids = torch.cat([prompt[:, -1:].expand(len(batch), 1),
                                 completion_ids[index, :kept]], dim=1)
                mask = completion_mask[index, :kept]
                labels = torch.cat([torch.full_like(ids[:, :1], -100),
                                    ids[:, 1:].masked_fill(mask == 0, -100)], dim=1)
                seen = torch.ones((len(batch), prompt.size(1)), dtype=mask.dtype, device=device)
                outputs = model(input_ids=ids, attention_mask=torch.cat([seen, mask], dim=1),
                                labels=labels, fused_lm_head=True,
                                past_key_values=_expanded(cache, len(batch), inner.config))
                parts.append((index, outputs.log_probs,
                              outputs.entropy if compute_entropy else None))
        return parts


def _score_rows(own, model, input_ids, attention_mask, prompt_width, rows, prompt_lens,
                 completion_lens, compute_entropy):
    """TRL's scoring of `rows`, cut to the columns their prompts and completions use."""
    import torch

    start = prompt_width - max(prompt_lens[i] for i in rows)
    kept = max(1, max(completion_lens[i] for i in rows))  # completion columns
    index = torch.tensor(rows, device=input_ids.device)
    logps, entropies, _ = own(model, input_ids[index, start:prompt_width + kept],
                              attention_mask[index, start:prompt_width + kept], kept,
                              compute_entropy=compute_entropy)
    return index, logps, entropies


def _expanded(cache, rows: int, config):
    """A new cache holding `cache`'s keys and values for `rows` rows (None: none)."""
    if cache is None:
        return None
    from transformers import DynamicCache

    copy = DynamicCache(config=config)
    for layer, held in enumerate(cache.layers):
        copy.update(held.keys.expand(rows, -1, -1, -1), held.values.expand(rows, -1, -1, -1),
                    layer)
    return copy


def _in_batch_order(parts, batch_rows: int, width: int, compute_entropy: bool):
    """The micro-batches' (index, logps, entropies) as TRL's (batch_rows, width) tensors."""
    import torch

    device = parts[0][1].device
    logps = torch.zeros((batch_rows, width), device=device)
    entropies = torch.zeros_like(logps) if compute_entropy else None
    # index_put keeps the graph: the loss reaches every micro-batch's forward
    for index, part_logps, part_entropies in parts:
        where = (index[:, None], torch.arange(part_logps.size(1), device=device)[None, :])
        logps = logps.to(part_logps.dtype).index_put(where, part_logps)
        if entropies is not None:
            entropies = entropies.to(part_entropies.dtype).index_put(where, part_entropies)
    return logps, entropies, None


def trimmed(trainer_class: type) -> type:
    """`trainer_class` (GRPOTrainer or a subclass) scoring trimmed micro-batches."""
    return type(trainer_class.__name__, (TrimmedRows, trainer_class), {})
