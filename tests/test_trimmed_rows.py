"""The trimmed loss forward (train/trimmed_rows.py) against TRL's own, on one batch."""

import pytest
import torch
from accelerate import Accelerator
from transformers import Qwen2Config, Qwen2ForCausalLM
from trl import GRPOTrainer
from trl.trainer import add_fused_lm_head

from codefrontier.train.trimmed_rows import TrimmedRows, micro_batches, trimmed

PAD = 0


class TRLScoring:
    """TRL's scoring method with the one trainer attribute it reads."""

    _get_per_token_logps_and_entropies = GRPOTrainer._get_per_token_logps_and_entropies
    accelerator = Accelerator(cpu=True)


class Trimmed(TrimmedRows, TRLScoring):
    pass


def padded_batch(prompt_lens, completion_lens, vocab, generator):
    """GRPOTrainer's layout: prompts padded on the left, completions on the right."""
    width_p, width_c = max(prompt_lens), max(completion_lens)
    rows, masks = [], []
    for p, c in zip(prompt_lens, completion_lens, strict=True):
        tokens = torch.randint(1, vocab, (p + c,), generator=generator).tolist()
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


@pytest.mark.parametrize("chunk", [None, 3])
def test_trimmed_scores_and_gradients_equal_trls(chunk):
    generator = torch.Generator().manual_seed(1)
    prompt_lens = [12, 30, 7, 30, 18, 9, 25, 14, 30, 11]
    completion_lens = [40, 3, 0, 22, 40, 5, 17, 1, 9, 33]
    input_ids, attention_mask, keep = padded_batch(prompt_lens, completion_lens, 64, generator)
    completion_mask = attention_mask[:, -keep:].float()
    results = []
    for scorer in (TRLScoring(), Trimmed()):
        policy = model()
        logps, entropies, _ = scorer._get_per_token_logps_and_entropies(
            policy, input_ids, attention_mask, keep, batch_size=chunk, compute_entropy=True)
        ((logps + 0.1 * entropies) * completion_mask).sum().backward()
        grads = torch.cat([p.grad.flatten() for p in policy.parameters()])
        results.append((logps * completion_mask, entropies * completion_mask, grads))
    (trl_logps, trl_entropies, trl_grads), (logps, entropies, grads) = results
    assert logps.shape == trl_logps.shape
    torch.testing.assert_close(logps, trl_logps, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(entropies, trl_entropies, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(grads, trl_grads, atol=1e-4, rtol=1e-3)


def test_micro_batches_group_similar_completions_and_cover_every_row():
    groups = micro_batches([5, 5, 5, 5, 5], [40, 1, 39, 2, 20], rows=2)
    assert groups == [[1, 3], [4, 2], [0]]
    assert sorted(i for group in groups for i in group) == list(range(5))


def test_trimmed_keeps_the_trainer_class_name_and_its_methods():
    cls = trimmed(GRPOTrainer)
    assert cls.__name__ == "GRPOTrainer" and issubclass(cls, GRPOTrainer)
    assert cls._get_per_token_logps_and_entropies is TrimmedRows._get_per_token_logps_and_entropies
