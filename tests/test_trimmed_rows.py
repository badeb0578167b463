"""The trimmed loss forward (train/trimmed_rows.py) against TRL's own, on one batch."""

import pytest
import torch
from accelerate import Accelerator
from transformers import Qwen2Config, Qwen2ForCausalLM
from trl import GRPOTrainer
from trl.trainer import add_fused_lm_head

from codefrontier.train.trimmed_rows import TrimmedRows, micro_batches, prompt_groups, trimmed

PAD = 0


class TRLScoring:
    """TRL's scoring method with the one trainer attribute it reads."""

    _get_per_token_logps_and_entropies = GRPOTrainer._get_per_token_logps_and_entropies
    accelerator = Accelerator(cpu=True)


class Trimmed(TrimmedRows, TRLScoring):
    pass


def padded_batch(prompt_lens, completion_lens, vocab, generator, groups=None):
    """GRPOTrainer's layout: prompts padded on the left, completions on the right. Rows
    of one group (`groups`: a label per row; default: a group per row) share a prompt."""
    width_p, width_c = max(prompt_lens), max(completion_lens)
    rows, masks, prompts = [], [], {}
    for row, (p, c) in enumerate(zip(prompt_lens, completion_lens, strict=True)):
        group = groups[row] if groups else row
        if group not in prompts:
            prompts[group] = torch.randint(1, vocab, (p,), generator=generator).tolist()
        tokens = prompts[group] + torch.randint(1, vocab, (c,), generator=generator).tolist()
        rows.append([PAD] * (width_p - p) + tokens + [PAD] * (width_c - c))
        masks.append([0] * (width_p - p) + [1] * (p + c) + [0] * (width_c - c))
    return torch.tensor(rows), torch.tensor(masks), width_c


def model(seed=0):
    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=64, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=256)
    policy = Qwen2ForCausalLM(config).float()
    add_fused_lm_head(policy, temperature=1.0, outputs=("log_probs", "entropy"))  # as TRL does
    return policy


def scores_and_gradients(scorer, input_ids, attention_mask, keep, chunk, checkpointing=False):
    policy = model()
    if checkpointing:
        policy.gradient_checkpointing_enable()
        policy.train()
    logps, entropies, _ = scorer._get_per_token_logps_and_entropies(
        policy, input_ids, attention_mask, keep, batch_size=chunk, compute_entropy=True)
    completion_mask = attention_mask[:, -keep:].float()
    ((logps + 0.1 * entropies) * completion_mask).sum().backward()
    grads = torch.cat([p.grad.flatten() for p in policy.parameters()])
    return logps * completion_mask, entropies * completion_mask, grads


def assert_equal_to_trls(input_ids, attention_mask, keep, chunk, checkpointing=False):
    trl_logps, trl_entropies, trl_grads = scores_and_gradients(
        TRLScoring(), input_ids, attention_mask, keep, chunk, checkpointing)
    logps, entropies, grads = scores_and_gradients(
        Trimmed(), input_ids, attention_mask, keep, chunk, checkpointing)
    assert logps.shape == trl_logps.shape
    torch.testing.assert_close(logps, trl_logps, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(entropies, trl_entropies, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(grads, trl_grads, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("chunk", [None, 3])
def test_trimmed_scores_and_gradients_equal_trls(chunk):
    generator = torch.Generator().manual_seed(1)
    prompt_lens = [12, 30, 7, 30, 18, 9, 25, 14, 30, 11]
    completion_lens = [40, 3, 0, 22, 40, 5, 17, 1, 9, 33]
    input_ids, attention_mask, keep = padded_batch(prompt_lens, completion_lens, 64, generator)
    assert_equal_to_trls(input_ids, attention_mask, keep, chunk)


@pytest.mark.parametrize("chunk", [None, 2])
def test_shared_prompts_score_and_train_as_trls_rows(chunk):
    """GRPO groups: three prompts of four rows each (one prompt of a single token), then
    two rows of their own; completions of every length, none among them."""
    generator = torch.Generator().manual_seed(2)
    prompt_lens = [20] * 4 + [1] * 4 + [33] * 4 + [7, 33]
    completion_lens = [40, 0, 12, 3, 5, 40, 1, 9, 22, 22, 2, 40, 8, 0]
    groups = [0] * 4 + [1] * 4 + [2] * 4 + [3, 4]
    input_ids, attention_mask, keep = padded_batch(prompt_lens, completion_lens, 64, generator,
                                                   groups)
    assert_equal_to_trls(input_ids, attention_mask, keep, chunk)


def test_under_gradient_checkpointing_every_row_keeps_its_prompt():
    generator = torch.Generator().manual_seed(3)
    input_ids, attention_mask, keep = padded_batch([9] * 4 + [15] * 4, [4, 30, 0, 12] * 2, 64,
                                                   generator, [0] * 4 + [1] * 4)
    assert_equal_to_trls(input_ids, attention_mask, keep, None, checkpointing=True)


def test_prompt_groups_keep_identical_prompts_together_in_first_seen_order():
    assert prompt_groups([(1, 2), (3,), (1, 2), (3,), (4,)]) == [[0, 2], [1, 3], [4]]


def test_micro_batches_group_similar_completions_and_cover_every_row():
    groups = micro_batches([5, 5, 5, 5, 5], [40, 1, 39, 2, 20], rows=2)
    assert groups == [[1, 3], [4, 2], [0]]
    assert sorted(i for group in groups for i in group) == list(range(5))


def test_trimmed_keeps_the_trainer_class_name_and_its_methods():
    cls = trimmed(GRPOTrainer)
    assert cls.__name__ == "GRPOTrainer" and issubclass(cls, GRPOTrainer)
    assert cls._get_per_token_logps_and_entropies is TrimmedRows._get_per_token_logps_and_entropies
