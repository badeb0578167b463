"""Batched sampling that drops a row from the batch as soon as it stops.

`model.generate` keeps every row of a static batch until the longest one ends, so a batch
costs (rows x longest completion) decode steps, and each step attends over the whole
padded cache. Multi-turn episodes are dominated by a few long turns, so here the rows
that emitted a stop token leave the batch (and the KV cache) at once, and the padding
columns that no remaining row needs are cut away. Continuous batching in transformers
(`generate_batch`) does more, but its paged attention ran about 8x slower on CPU here.
With a prefix cache (prefix_cache.py) a prompt that extends a finished row, the next
turn of an episode, prefills only its new tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from codefrontier.generation.prefix_cache import CachedRow, PrefixCache


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
                   on_batch=None, prefix_cache: PrefixCache | None = None, journal=None
                   ) -> list[list[int]]:
    """New tokens for each prompt (token ids), as `sample_batch` gives them. Prompts are
    batched in order of length, so that little padding is attended; the batch starting
    at sorted row `start` draws from a generator seeded with seed * 1_000_003 + start, so
    the result does not depend on how many rows other calls had. `on_batch(rows)` is
    called after each batch (progress bars). With a `prefix_cache` (generation/
    prefix_cache.py: only while the weights stay the same) each prompt prefills only
    what no row of an earlier call shares with it, and every finished row is cached.

    So a batch's completions depend on its prompts, its seed and earlier calls alone,
    not on the call's other batches: with a `journal` each batch's completions are
    handed to `journal.keep(start, prompts, completions)` as it ends, and a batch for
    which `journal.kept(start, prompts)` returns completions (kept by an earlier run of
    the job) is not sampled again; the others come out as they would have."""
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    completions: list[list[int] | None] = [None] * len(prompts)
    reuse = prefix_cache if prefix_cache is not None and _all_growing(model.config) else None
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        batch_prompts = [prompts[i] for i in batch]
        new_ids = journal.kept(start, batch_prompts) if journal is not None else None
        if new_ids is None:
            new_ids = _sample_rows(model, batch_prompts, pad_id, max_new_tokens, stop_ids,
                                   sampler, seed * 1_000_003 + start, reuse)
            if journal is not None:
                journal.keep(start, batch_prompts, new_ids)
        for i, ids in zip(batch, new_ids, strict=True):
            completions[i] = ids
        if on_batch is not None:
            on_batch(len(batch))
    if prefix_cache is not None:
        prefix_cache.end_call()
    return completions


def _sample_rows(model, prompts: list[list[int]], pad_id: int, max_new_tokens: int,
                 stop_ids: set[int], sampler: Sampler, seed: int,
                 prefix_cache: PrefixCache | None) -> list[list[int]]:
    """One batch of `sample_prompts`: its prompts left-padded (past what the prefix cache
    holds of them), sampled from a generator seeded with `seed`."""
    import torch

    from codefrontier.generation.kv_cache import growing_cache

    device = next(model.parameters()).device
    matches = [prefix_cache.match(p) if prefix_cache is not None else (0, None) for p in prompts]
    suffixes = [p[shared:] for p, (shared, _) in zip(prompts, matches, strict=True)]
    width = max(map(len, suffixes))
    input_ids = torch.tensor([[pad_id] * (width - len(s)) + s for s in suffixes], device=device)
    attention_mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in suffixes],
                                  device=device)
    reused = any(shared for shared, _ in matches)
    # a filled cache's buffers are made before the prefill: room for it too
    cache = growing_cache(model.config, headroom=max_new_tokens + (width if reused else 0))
    if reused:
        attention_mask = torch.cat([_fill_cache(cache, matches, device), attention_mask], 1)
    generator = torch.Generator(device).manual_seed(seed)
    keep = None if prefix_cache is None else _keeper(prefix_cache, prompts)
    return sample_batch(model, input_ids, attention_mask, max_new_tokens, stop_ids, sampler,
                        generator, cache=cache, keep=keep)


def _all_growing(config) -> bool:
    """Whether every cache layer of the model holds all positions (no sliding window):
    only then can cached keys and values stand in for a prefix."""
    from codefrontier.generation.kv_cache import GrowingLayer, growing_cache

    return all(isinstance(layer, GrowingLayer) for layer in growing_cache(config, 1).layers)


def _fill_cache(cache, matches: list[tuple[int, CachedRow | None]], device):
    """Write each row's shared prefix into `cache`, left-padded to the longest; returns
    the attention mask of those columns."""
    import torch

    width = max(shared for shared, _ in matches)
    mask = torch.zeros(len(matches), width, dtype=torch.long, device=device)
    template = next(row for _, row in matches if row is not None)
    for index, layer in enumerate(cache.layers):
        heads, _, dim = template.keys[index].shape
        like = template.keys[index]
        keys = like.new_zeros(len(matches), heads, width, dim, device=device)
        values = like.new_zeros(len(matches), heads, width, dim, device=device)
        for b, (shared, row) in enumerate(matches):
            if shared:
                keys[b, :, width - shared:] = row.keys[index][:, :shared]
                values[b, :, width - shared:] = row.values[index][:, :shared]
                mask[b, width - shared:] = 1
        layer.update(keys, values)
    return mask


def _keeper(prefix_cache: PrefixCache, prompts: list[list[int]]):
    """`keep(row, local, generated, cache, row_mask)` for sample_batch: caches the keys
    and values of a finished row (batch row `row`, at index `local` of the cache): its
    prompt and every generated token but the last, which was never fed to the model."""

    def keep(row: int, local: int, generated: list[int], cache, row_mask) -> None:
        columns = row_mask.bool()
        token_ids = (*prompts[row], *generated[:-1])
        keys = tuple(layer.keys[local][:, columns] for layer in cache.layers)
        values = tuple(layer.values[local][:, columns] for layer in cache.layers)
        if keys[0].shape[1] != len(token_ids):
            raise RuntimeError("the cached columns do not match the row's tokens")
        prefix_cache.add(CachedRow(token_ids, keys, values))

    return keep


def sample_batch(model, input_ids, attention_mask, max_new_tokens: int, stop_ids: set[int],
                 sampler: Sampler, generator=None, cache=None, keep=None) -> list[list[int]]:
    """New tokens for each left-padded row, up to and including its first stop token (or
    max_new_tokens of them). A `cache` may already hold keys and values of earlier
    columns, which `attention_mask` then covers too (it is wider than `input_ids`).
    `keep(row, local, generated, cache, row_mask)` is called for each row as it finishes,
    while its keys and values are still in the cache."""
    import torch

    from codefrontier.generation.attention import grouped_attention
    from codefrontier.generation.kv_cache import growing_cache

    rows = torch.arange(input_ids.shape[0])
    generated: list[list[int]] = [[] for _ in range(input_ids.shape[0])]
    stop = torch.tensor(sorted(stop_ids), dtype=input_ids.dtype)
    positions = (attention_mask.cumsum(-1) - 1).clamp(min=0)[:, -input_ids.shape[1]:]
    if cache is None:
        cache = growing_cache(model.config, headroom=max_new_tokens)
    with torch.inference_mode(), grouped_attention(model):
        logits = _prefill(model, input_ids, attention_mask, positions, cache)
        next_position = positions[:, -1] + 1
        for step in range(max_new_tokens):
            tokens = sampler(logits, generator)
            for row, token in zip(rows.tolist(), tokens.tolist(), strict=True):
                generated[row].append(token)
            running = ~torch.isin(tokens, stop)
            if step == max_new_tokens - 1 or not running.any():
                running[:] = False
            if keep is not None:
                for local in (~running).nonzero().squeeze(1).tolist():
                    row = int(rows[local])
                    keep(row, local, generated[row], cache, attention_mask[local])
            if not running.any():
                break
            if not running.all():
                keep_rows = running.nonzero().squeeze(1)
                cache.batch_select_indices(keep_rows)
                rows, tokens = rows[keep_rows], tokens[keep_rows]
                attention_mask = attention_mask[keep_rows]
                next_position = next_position[keep_rows]
                attention_mask = _drop_shared_padding(cache, attention_mask)
            attention_mask = torch.cat([attention_mask, attention_mask.new_ones(len(rows), 1)],
                                       dim=1)
            logits = model(input_ids=tokens[:, None], attention_mask=attention_mask,
                           position_ids=next_position[:, None], past_key_values=cache,
                           use_cache=True).logits[:, -1, :]
            next_position = next_position + 1
    return generated


def _prefill(model, input_ids, attention_mask, positions, cache):
    """The last prompt position's logits of every row, its keys and values written to
    `cache`. Rows that repeat an earlier row (a GRPO group's copies of one prompt, the n
    samples of a problem) are computed once and copied, when the cache holds nothing
    else yet: a prompt of the multi-turn settings is hundreds of tokens, and its eight
    copies were most of a first turn's time."""
    import torch

    first_of: dict[tuple, int] = {}
    source = [first_of.setdefault(tuple(row), i)
              for i, row in enumerate(torch.cat([input_ids, attention_mask], 1).tolist())]
    shared = len(first_of) < len(source) and cache.get_seq_length() == 0
    if shared:
        unique = torch.tensor(sorted(first_of.values()))
        input_ids, attention_mask, positions = (
            input_ids[unique], attention_mask[unique], positions[unique])
    logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions,
                   past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1, :]
    if not shared:
        return logits
    slot = {row: k for k, row in enumerate(sorted(first_of.values()))}
    copies = torch.tensor([slot[row] for row in source])
    cache.batch_select_indices(copies)
    return logits[copies]


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
