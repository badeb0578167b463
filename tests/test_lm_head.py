"""The plain LM head for the counted positions (train/lm_head.py) against TRL's fused head."""

import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from trl.trainer import add_fused_lm_head

from codefrontier.train import lm_head
from codefrontier.train.lm_head import compact_lm_head

FIELDS = ("log_probs", "entropy", "is_top1", "mean_logits", "log_sum_sq_probs")
VOCAB = 300


def patched(compact: bool, temperature=0.7, outputs=FIELDS, **config):
    torch.manual_seed(0)
    policy = Qwen2ForCausalLM(Qwen2Config(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, **config))
    add_fused_lm_head(policy, temperature=temperature, outputs=outputs)  # as TRL's trainers do
    if compact:
        compact_lm_head(policy, temperature, outputs)
    return policy


def batch(counted_share=0.5, seed=1):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (3, 40), generator=generator)
    labels = ids.masked_fill(torch.rand(ids.shape, generator=generator) > counted_share, -100)
    labels[:, :10] = -100  # a prompt
    mask = torch.ones_like(ids)
    mask[2, 30:] = 0  # padding
    labels[2, 30:] = -100
    return ids, mask, labels


def run(policy, ids, mask, labels, **kwargs):
    outputs = policy(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True, **kwargs)
    (outputs.loss + 0.1 * outputs.entropy.sum()).backward()
    grads = torch.cat([p.grad.flatten() for p in policy.parameters() if p.grad is not None])
    return outputs, grads


def with_greedy_labels(labels, ids, mask):
    """Row 0's counted labels set to the model's own most likely next token."""
    with torch.no_grad():
        greedy = patched(False)(input_ids=ids, attention_mask=mask).logits.argmax(-1)
    labels = labels.clone()
    counted = labels[0, 1:] != -100
    labels[0, 1:][counted] = greedy[0, :-1][counted]
    return labels


def test_values_and_gradients_equal_trls_fused_head():
    ids, mask, labels = batch()
    labels = with_greedy_labels(labels, ids, mask)
    ours, our_grads = run(patched(True), ids, mask, labels)
    theirs, their_grads = run(patched(False), ids, mask, labels)
    torch.testing.assert_close(ours.loss, theirs.loss)
    for field in FIELDS:
        torch.testing.assert_close(getattr(ours, field), getattr(theirs, field), msg=field)
    assert torch.equal(ours.label_mask, theirs.label_mask)
    torch.testing.assert_close(our_grads, their_grads)
    assert ours.is_top1.any()  # the comparison saw some top-1 labels
    assert (ours.log_probs[labels[:, 1:] == -100] == 0).all()


def test_pre_shifted_labels_and_the_token_count_passed_in():
    ids, mask, labels = batch(seed=2)
    kwargs = {"shift_labels": labels, "labels": None, "num_items_in_batch": 17}
    ours = patched(True)(input_ids=ids, attention_mask=mask, fused_lm_head=True, **kwargs)
    theirs = patched(False)(input_ids=ids, attention_mask=mask, fused_lm_head=True, **kwargs)
    torch.testing.assert_close(ours.loss, theirs.loss)
    torch.testing.assert_close(ours.log_probs, theirs.log_probs)
    assert ours.log_probs.shape == labels.shape


def test_a_batch_without_counted_tokens_gives_a_zero_loss_that_backpropagates():
    ids, mask, labels = batch()
    outputs, grads = run(patched(True), ids, mask, torch.full_like(labels, -100))
    assert outputs.loss.item() == 0
    assert grads.abs().sum().item() == 0


def test_past_the_budget_trls_head_serves(monkeypatch):
    calls = []
    monkeypatch.setattr(lm_head, "_plain_head", lambda *a, **k: calls.append(a) or 1 / 0)
    ids, mask, labels = batch()
    policy = patched(False)
    compact_lm_head(policy, 0.7, FIELDS, budget=VOCAB * int((labels[:, 1:] != -100).sum()) - 1)
    reference = patched(False)
    kwargs = {"input_ids": ids, "attention_mask": mask, "labels": labels, "fused_lm_head": True}
    torch.testing.assert_close(policy(**kwargs).loss, reference(**kwargs).loss)
    assert not calls
    compact_lm_head(reference, 0.7, FIELDS)  # within the budget: the plain path
    with pytest.raises(ZeroDivisionError):
        reference(**kwargs)
    assert len(calls) == 1


def test_scaled_logits_keep_trls_head():
    policy = patched(False, logit_scale=0.5)
    fused = policy.forward
    compact_lm_head(policy, 0.7, FIELDS)
    assert policy.forward is fused


def test_calls_without_the_fused_head_are_the_models_own():
    ids, mask, _ = batch()
    policy = patched(True)
    with torch.no_grad():
        logits = policy(input_ids=ids, attention_mask=mask).logits
        expected = Qwen2ForCausalLM.forward(policy, input_ids=ids, attention_mask=mask).logits
    torch.testing.assert_close(logits, expected)
