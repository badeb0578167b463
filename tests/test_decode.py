"""The compacting sampler against transformers' own generate, on a small random Qwen2."""

import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from codefrontier.generation import decode
from codefrontier.generation.decode import Sampler, _nucleus, sample_batch

STOPS = {3, 7, 11, 19}  # several stop ids, so that rows stop at different steps


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=48, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=256, pad_token_id=0)
    return Qwen2ForCausalLM(config).eval()


def left_padded_prompts(lengths, seed=0):
    generator = torch.Generator().manual_seed(seed)
    width = max(lengths)
    ids = torch.zeros(len(lengths), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, length in enumerate(lengths):
        ids[row, width - length:] = torch.randint(20, 48, (length,), generator=generator)
        mask[row, width - length:] = 1
    return ids, mask


def until_stop(row):
    end = next((k for k, t in enumerate(row) if t in STOPS), None)
    return row if end is None else row[:end + 1]


def test_greedy_completions_match_generate_token_for_token(model):
    ids, mask = left_padded_prompts([5, 17, 9, 30, 2, 12, 30, 8])
    with torch.inference_mode():
        reference = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=40,
                                   do_sample=False, eos_token_id=sorted(STOPS), pad_token_id=0)
    expected = [until_stop(row) for row in reference[:, ids.shape[1]:].tolist()]
    ours = sample_batch(model, ids, mask, 40, STOPS, Sampler(temperature=0))
    assert ours == expected
    stopped_at = {len(c) for c in ours if c[-1] in STOPS}
    assert len(stopped_at) > 1, "the rows should stop at different steps"


def test_repeated_prompts_are_prefilled_once_and_sample_as_separate_rows(model, monkeypatch):
    """A GRPO group's copies of one prompt: prefilled once, then each copy is its own row
    (greedy: what generate gives for it; sampled: the draws of a prefill of every row)."""
    ids, mask = left_padded_prompts([9, 17, 4])
    order = [0, 1, 0, 2, 1, 0]  # copies, interleaved with others
    ids, mask = ids[order], mask[order]
    with torch.inference_mode():
        reference = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=30,
                                   do_sample=False, eos_token_id=sorted(STOPS), pad_token_id=0)
    assert sample_batch(model, ids, mask, 30, STOPS, Sampler(temperature=0)) == [
        until_stop(row) for row in reference[:, ids.shape[1]:].tolist()]

    calls = []
    hook = model.register_forward_pre_hook(
        lambda _, args, kwargs: calls.append(kwargs["input_ids"].shape), with_kwargs=True)
    try:
        sampled = sample_batch(model, ids, mask, 30, STOPS, Sampler(temperature=1.2),
                               torch.Generator().manual_seed(3))
    finally:
        hook.remove()
    assert calls[0] == (3, ids.shape[1])  # the prefill: one row per distinct prompt

    def every_row(model, input_ids, attention_mask, positions, cache):
        return model(input_ids=input_ids, attention_mask=attention_mask,
                     position_ids=positions, past_key_values=cache, use_cache=True,
                     logits_to_keep=1).logits[:, -1, :]

    monkeypatch.setattr(decode, "_prefill", every_row)
    assert sample_batch(model, ids, mask, 30, STOPS, Sampler(temperature=1.2),
                        torch.Generator().manual_seed(3)) == sampled
    assert len({tuple(row) for row in sampled}) > 3  # copies of one prompt drew apart


def test_rows_end_at_their_first_stop_or_the_budget(model):
    ids, mask = left_padded_prompts([4, 11, 23, 7, 15, 3], seed=1)
    completions = sample_batch(model, ids, mask, 25, STOPS, Sampler(temperature=1.5),
                               torch.Generator().manual_seed(0))
    for completion in completions:
        assert 1 <= len(completion) <= 25
        assert all(t not in STOPS for t in completion[:-1])
        assert completion[-1] in STOPS or len(completion) == 25


def test_sampling_is_reproducible_from_the_generator_seed(model):
    ids, mask = left_padded_prompts([6, 14, 9], seed=2)

    def draw(seed):
        return sample_batch(model, ids, mask, 30, STOPS, Sampler(temperature=1.0, top_p=0.9),
                            torch.Generator().manual_seed(seed))

    assert draw(5) == draw(5)
    assert draw(5) != draw(6)


def test_nucleus_keeps_the_smallest_set_reaching_top_p():
    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05], [0.05, 0.9, 0.03, 0.02]])
    kept = _nucleus(probs, 0.8)
    assert torch.allclose(kept[0], torch.tensor([0.5, 0.3, 0.0, 0.0]) / 0.8)
    # the most likely token alone passes 0.8: it stays, alone
    assert torch.equal(kept[1], torch.tensor([0.0, 1.0, 0.0, 0.0]))


def test_growing_layer_holds_what_concatenation_would():
    """Writes in place, through a batch selection and a cut of leading columns, and
    copies into a new buffer when its room runs out or its views were replaced."""
    from codefrontier.generation.kv_cache import GrowingLayer

    torch.manual_seed(0)
    layer, keys, values = GrowingLayer(headroom=3), torch.empty(5, 2, 0, 4), torch.empty(5, 2, 0, 4)

    def step(length):
        nonlocal keys, values
        k, v = torch.randn(keys.shape[0], 2, length, 4), torch.randn(keys.shape[0], 2, length, 4)
        keys, values = torch.cat([keys, k], dim=2), torch.cat([values, v], dim=2)
        got = layer.update(k, v)
        assert torch.equal(got[0], keys) and torch.equal(got[1], values)

    step(6)  # a buffer with room for 6 + 3 columns
    buffer = layer._buffers[0]
    step(1), step(1)
    assert layer._buffers[0] is buffer  # written in place
    keep = torch.tensor([0, 3, 4])
    layer.batch_select_indices(keep)
    keys, values = keys[keep], values[keep]
    buffer = layer._buffers[0]
    step(1)  # the ninth column, in place
    assert layer._buffers[0] is buffer
    layer.keys, layer.values = layer.keys[:, :, 2:], layer.values[:, :, 2:]  # shared padding
    keys, values = keys[:, :, 2:], values[:, :, 2:]
    step(1)  # no room left: a new buffer, 7 + 1 + 3 columns
    assert layer._buffers[0] is not buffer
    buffer = layer._buffers[0]
    step(2)
    assert layer._buffers[0] is buffer
    layer.keys, layer.values = layer.keys.clone(), layer.values.clone()
    step(1)  # no longer views of the buffer: copied
    assert layer._buffers[0] is not buffer


def random_prompts(lengths, seed):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randint(20, 48, (n,), generator=generator).tolist() for n in lengths]


def test_next_turns_reuse_the_cached_rows_and_sample_what_a_full_prefill_would(model):
    """Greedy second turns (prompt + reply + new tokens, some replies re-rendered with
    other last tokens) are the same with the prefix cache as without it, and only the
    tokens no cached row shares are prefilled."""
    from codefrontier.generation.decode import sample_prompts
    from codefrontier.generation.prefix_cache import PrefixCache

    greedy = Sampler(temperature=0)
    prompts = random_prompts([5, 17, 9, 30, 12], seed=3)
    cache = PrefixCache()
    replies = sample_prompts(model, prompts, 0, 25, STOPS, greedy, seed=0, batch_size=2,
                             prefix_cache=cache)
    assert len(cache) == len(prompts)
    tool_results = random_prompts([4, 9, 1, 6, 3], seed=4)
    turns = [p + r + t for p, r, t in zip(prompts, replies, tool_results, strict=True)]
    longest = max(range(len(replies)), key=lambda i: len(replies[i]))
    assert len(replies[longest]) > 3
    # the reply re-rendered: its last three tokens differ
    turns[longest] = prompts[longest] + replies[longest][:-3] + [15, 15] + tool_results[longest]
    turns.append([16] + random_prompts([7], seed=5)[0])  # a new conversation: no reuse
    cache.reused_tokens = 0
    reused = sample_prompts(model, turns, 0, 25, STOPS, greedy, seed=0, batch_size=3,
                            prefix_cache=cache)
    assert reused == sample_prompts(model, turns, 0, 25, STOPS, greedy, seed=0, batch_size=3)
    # each row's keys and values cover its prompt and its reply but the reply's last token
    shared = [len(p) + len(r) - 1 for p, r in zip(prompts, replies, strict=True)]
    shared[longest] -= 2
    assert cache.reused_tokens == sum(shared)
    assert cache.prompt_tokens == sum(map(len, prompts)) + sum(map(len, turns))


def test_the_prefix_cache_keeps_the_last_two_calls_within_its_budget():
    """It holds the rows of the call under way and of the previous call, and offers only
    the previous call's (so a batch never depends on the batches before it in its call)."""
    from codefrontier.generation.prefix_cache import CachedRow, PrefixCache

    def row(tokens):
        tensor = torch.zeros(2, len(tokens), 4)  # 32 bytes per token, keys and values 64
        return CachedRow(tuple(tokens), (tensor,), (tensor,))

    cache = PrefixCache(budget_mb=150 / 2**20)  # two rows of one token, not three
    cache.add(row([1])), cache.add(row([1, 2]))
    assert len(cache) == 1  # the second would pass the budget
    assert cache.match([1, 2, 5]) == (0, None)  # a row of the call under way
    cache.end_call()
    cache.add(row([3]))
    assert cache.match([1, 2, 5]) == (1, cache._previous[0])
    assert cache.match([3, 4]) == (0, None)
    cache.end_call()
    assert cache.match([3, 4])[0] == 1
    assert cache.match([3]) == (0, None)  # the last token is always prefilled
    cache.end_call()
    assert len(cache) == 0 and cache.match([1, 2, 5]) == (0, None)


def test_a_call_resumed_after_its_kept_batches_samples_the_rest_as_an_uninterrupted_call(model):
    """Each batch is sampled from its own seed, and the prefix cache offers it only rows
    of earlier calls: so batches kept by a killed job stand for themselves, and the
    batches sampled after them come out as in a call that was never interrupted."""
    from codefrontier.generation.decode import sample_prompts
    from codefrontier.generation.prefix_cache import PrefixCache

    class Journal:
        def __init__(self, kept=None):
            self.batches, self.sampled = dict(kept or {}), []

        def kept(self, start, prompts):
            return self.batches.get(start)

        def keep(self, start, prompts, completions):
            self.batches[start] = completions
            self.sampled.append(start)

    # one shared prefix: without the rule, the later batches would reuse the first's rows
    prompts = [[21, 22, 23, *p] for p in random_prompts([5, 17, 9, 30, 12, 7, 3, 22], seed=6)]
    sampler = Sampler(temperature=1.0)

    def call(journal, cache):
        return sample_prompts(model, prompts, 0, 20, STOPS, sampler, seed=4, batch_size=3,
                              prefix_cache=cache, journal=journal)

    whole, cache = Journal(), PrefixCache()
    uninterrupted = call(whole, cache)
    assert whole.sampled == [0, 3, 6] and len(cache) == len(prompts)
    assert cache.reused_tokens == 0  # no batch took the shared prefix from the one before
    resumed = Journal({0: whole.batches[0]})  # killed after its first batch
    assert call(resumed, PrefixCache()) == uninterrupted and resumed.sampled == [3, 6]
