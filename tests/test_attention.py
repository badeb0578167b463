"""grouped_sdpa (generation/attention.py) against transformers' own sdpa attention."""

import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from transformers.integrations.sdpa_attention import sdpa_attention_forward

from codefrontier.generation.attention import GROUPED_SDPA, grouped_attention, grouped_sdpa


class GroupedModule(torch.nn.Module):
    num_key_value_groups = 2
    is_causal = True


@pytest.mark.parametrize("queries", [1, 7])  # a decode step, a prefill
def test_grouped_sdpa_attends_as_transformers_sdpa_with_a_padding_mask(queries):
    generator = torch.Generator().manual_seed(0)
    batch, heads, kv_heads, keys, dim = 3, 4, 2, 11, 8
    query = torch.randn(batch, heads, queries, dim, generator=generator)
    key = torch.randn(batch, kv_heads, keys, dim, generator=generator)
    value = torch.randn(batch, kv_heads, keys, dim, generator=generator)
    allowed = torch.ones(batch, 1, queries, keys, dtype=torch.bool)
    allowed[0, :, :, :4] = False  # row 0 left-padded
    allowed[:, :, :, keys - queries:] &= torch.ones(queries, queries, dtype=torch.bool).tril()
    module = GroupedModule()
    ours, _ = grouped_sdpa(module, query, key, value, allowed)
    theirs, _ = sdpa_attention_forward(module, query, key, value, allowed)
    torch.testing.assert_close(ours, theirs)


def test_sampling_switches_a_cpu_sdpa_model_and_restores_it():
    config = Qwen2Config(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2)
    model = Qwen2ForCausalLM(config)
    model.set_attn_implementation("sdpa")
    with grouped_attention(model):
        assert model.config._attn_implementation == GROUPED_SDPA
    assert model.config._attn_implementation == "sdpa"
    model.set_attn_implementation("eager")  # anything else is left alone
    with grouped_attention(model):
        assert model.config._attn_implementation == "eager"
