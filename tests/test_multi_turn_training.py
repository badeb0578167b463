"""SFT on multi-turn conversations and GRPO with multi-turn rollouts, for real.

A tiny embedded model is fine-tuned until it reproduces one tool-use and one
agentic episode, so that its GRPO rollouts call the real tools (the judge's
sandbox, a bubblewrap terminal). Two GRPO steps then run in each setting; the
loss's inputs are recorded, and the tokens of the tool results must carry no
loss (TRL's tool mask), while the model's own turns do.
"""

from __future__ import annotations

import json

import pytest
from memorised import memorise

pytestmark = pytest.mark.slow

SETTINGS = ("tool_use", "agentic")


@pytest.fixture(scope="module")
def memorised(tmp_path_factory):
    """A tiny model that reproduces one episode of each multi-turn setting."""
    folder = tmp_path_factory.mktemp("multi-turn")
    return folder, memorise(folder, SETTINGS)


@pytest.fixture
def recorded_losses(monkeypatch):
    """The inputs of every loss computation of the GRPO trainer."""
    from trl import GRPOTrainer

    seen = []
    original = GRPOTrainer._compute_loss

    def recording(self, model, inputs):
        seen.append({key: inputs[key].detach().clone() for key in
                     ("completion_ids", "completion_mask", "tool_mask") if key in inputs})
        return original(self, model, inputs)

    monkeypatch.setattr(GRPOTrainer, "_compute_loss", recording)
    return seen


@pytest.mark.parametrize("setting", SETTINGS)
def test_two_grpo_steps_give_tool_results_no_loss(memorised, recorded_losses, setting, tmp_path):
    from transformers import AutoTokenizer

    from codefrontier.train.grpo import run_grpo

    folder, sft = memorised
    out = run_grpo(str(sft), folder / "train.parquet", "kinf", tmp_path / "rl",
                   {"max_steps": 2, "num_generations": 2, "per_device_train_batch_size": 2,
                    "max_completion_length": 320, "temperature": 0.05, "save_strategy": "no",
                    "logging_steps": 1},
                   judge_workers=1, setting=setting)
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["setting"] == setting
    tokenizer = AutoTokenizer.from_pretrained(out)
    masked, trained = [], []
    for inputs in recorded_losses:
        assert "tool_mask" in inputs, "multi-turn rollouts must carry TRL's tool mask"
        loss_mask = inputs["completion_mask"] * inputs["tool_mask"]
        for ids, completion, tool, loss in zip(inputs["completion_ids"],
                                               inputs["completion_mask"], inputs["tool_mask"],
                                               loss_mask, strict=True):
            masked.append(tokenizer.decode(ids[(completion == 1) & (tool == 0)]))
            trained.append(tokenizer.decode(ids[loss == 1]))
    observation = "exit status: 0" if setting == "tool_use" else "exit code 0"
    assert any(observation in text for text in masked), masked  # the tool really ran
    assert all("<tool_response>" not in text and observation not in text for text in trained)
    assert any("<tool_call>" in text for text in trained)  # the model's own calls are trained
    rewards = [json.loads(line) for line in
               (tmp_path / "rl.work" / "rewards.jsonl").read_text().splitlines()]
    assert rewards and all(entry["samples"] == 2 for entry in rewards)
