"""Batched sampling that drops a row from the batch as soon as it stops.

`model.generate` keeps every row of a static batch until the longest one ends, so a batch
costs (rows x longest completion) decode steps, and each step attends over the whole
padded cache. Multi-turn episodes are dominated by a few long turns, so here the rows
that emitted a stop token leave the batch (and the KV cache) at once, and the padding
columns that no remaining row needs are cut away. Continuous batching in transformers
(`generate_batch`) does more, but its paged attention ran about 8x slower on CPU here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sampler:
    """How the next token is drawn: greedy at temperature 0, else temperature and top-p
    (nucleus) sampling, as in `model.generate(do_sample=True, top_k=None)`."""

    temperature: float = 1.0
    top_p: float = 1.0

    def __call__(self, logits, generator):
        import torch

        if self.temperature == 0:
            return logits.argmax(-1)
        probs = torch.softmax(logits.float() / self.temperature, dim=-1)
        if self.top_p < 1.0:
            probs = _nucleus(probs, self.top_p)
        return torch.multinomial(probs, 1, generator=generator).squeeze(1)


def _nucleus(probs, top_p: float):
    """Zero the tokens outside the smallest set whose probability reaches top_p (the most
    likely token always stays), then renormalise."""
    import torch

    sorted_probs, order = probs.sort(dim=-1, descending=True)
    outside = sorted_probs.cumsum(-1) - sorted_probs >= top_p
    sorted_probs = sorted_probs.masked_fill(outside, 0.0)
    kept = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
    return kept / kept.sum(-1, keepdim=True)


def stop_token_ids(model, tokenizer) -> set[int]:
    """The tokens that end a turn: the generation config's end-of-sequence ids and the
    tokenizer's."""
    ids = model.generation_config.eos_token_id
    ids = set(ids if isinstance(ids, list) else [ids] if ids is not None else [])
    return ids | {tokenizer.eos_token_id}


def sample_prompts(model, prompts: list[list[int]], pad_id: int, max_new_tokens: int,
                   stop_ids: set[int], sampler: Sampler, seed: int, batch_size: int,
                   on_batch=None) -> list[list[int]]:
    """New tokens for each prompt (token ids), as `sample_batch` gives them. Prompts are
    batched in order of length, so that little padding is attended; the batch starting
    at sorted row `start` draws from a generator seeded with seed * 1_000_003 + start, so
    the result does not depend on how many rows other calls had. `on_batch(rows)` is
    called after each batch (progress bars)."""
    import torch

    device = next(model.parameters()).device
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    completions: list[list[int] | None] = [None] * len(prompts)
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        width = max(len(prompts[i]) for i in batch)
        input_ids = torch.tensor([[pad_id] * (width - len(prompts[i])) + prompts[i]
                                  for i in batch], device=device)
        attention_mask = torch.tensor([[0] * (width - len(prompts[i])) + [1] * len(prompts[i])
                                       for i in batch], device=device)
        generator = torch.Generator(device).manual_seed(seed * 1_000_003 + start)
        for i, new_ids in zip(batch, sample_batch(model, input_ids, attention_mask,
                                                  max_new_tokens, stop_ids, sampler, generator),
                              strict=True):
            completions[i] = new_ids
        if on_batch is not None:
            on_batch(len(batch))
    return completions


def sample_batch(model, input_ids, attention_mask, max_new_tokens: int, stop_ids: set[int],
                 sampler: Sampler, generator=None) -> list[list[int]]:
    """New tokens for each left-padded row, up to and including its first stop token (or
    max_new_tokens of them)."""
    import torch

    from codefrontier.generation.kv_cache import growing_cache

    rows = torch.arange(input_ids.shape[0])
    generated: list[list[int]] = [[] for _ in range(input_ids.shape[0])]
    stop = torch.tensor(sorted(stop_ids), dtype=input_ids.dtype)
    positions = (attention_mask.cumsum(-1) - 1).clamp(min=0)
    cache = growing_cache(model.config, headroom=max_new_tokens)
    with torch.inference_mode():
        logits = model(input_ids=input_ids, attention_mask=attention_mask,
                       position_ids=positions, cache=cache, use_cache=True,
                       logits_to_keep=1).logits[:, -1, :]
        next_position = positions[:, -1] + 1
        for step in range(max_new_tokens):
            tokens = sampler(logits, generator)
            for row, token in zip(rows.tolist(), tokens.tolist(), strict=True):
                generated[row].append(token)
            running = ~torch.isin(tokens, stop)
            if step == max_new_tokens - 1 or not running.any():
                break
            if not running.all():
                keep = running.nonzero().squeeze(1)
                cache.batch_select_indices(keep)
                rows, tokens = rows[keep], tokens[keep]
                attention_mask, next_position = attention_mask[keep], next_position[keep]
                attention_mask = _drop_shared_padding(cache, attention_mask)
            attention_mask = torch.cat([attention_mask, attention_mask.new_ones(len(rows), 1)],
                                       dim=1)
            logits = model(input_ids=tokens[:, None], attention_mask=attention_mask,
                           position_ids=next_position[:, None], cache=cache,
                           use_cache=True).logits[:, -1, :]
            next_position = next_position + 1
    return generated


def _drop_shared_padding(cache, attention_mask):
    """Cut the leading columns that are padding in every remaining row, from the mask and
    from each layer's keys and values (positions are explicit, so nothing else moves)."""
    first = int(attention_mask.any(0).nonzero()[0])
    if first == 0:
        return attention_mask
    for layer in cache.layers:
        layer.keys = layer.keys[:, :, first:, :]
        layer.values = layer.values[:, :, first:, :]
    return attention_mask[:, first:]
