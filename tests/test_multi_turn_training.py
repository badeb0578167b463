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


@pytest.fixture
def recorded_rollouts(monkeypatch):
    """What every multi-turn rollout handed GRPOTrainer."""
    from codefrontier.train.multi_turn import MultiTurnRollout

    seen = []
    original = MultiTurnRollout.__call__

    def recording(self, prompts, trainer):
        output = original(self, prompts, trainer)
        seen.append(output)
        return output

    monkeypatch.setattr(MultiTurnRollout, "__call__", recording)
    return seen


@pytest.mark.parametrize("setting", SETTINGS)
def test_rollouts_play_the_episodes_evaluation_plays(memorised, recorded_rollouts, setting,
                                                     tmp_path):
    """The first rollout (the SFT weights) and the evaluation of the same checkpoint, both
    at a temperature that leaves the memorised model no choice: the same episodes, the
    same answers."""
    from transformers import AutoTokenizer

    from codefrontier.base.tables import read_records
    from codefrontier.evaluate.sampling import sample_checkpoint
    from codefrontier.generation import SamplingSettings
    from codefrontier.train.grpo import run_grpo

    folder, sft = memorised
    run_grpo(str(sft), folder / "train.parquet", "kinf", tmp_path / "rl",
             {"max_steps": 1, "num_generations": 2, "per_device_train_batch_size": 2,
              "max_completion_length": 320, "temperature": 0.05, "save_strategy": "no"},
             judge_workers=1, setting=setting)
    sample_checkpoint(str(sft), folder / "train.parquet", tmp_path / "samples.parquet",
                      setting=setting, sampling=SamplingSettings(n=2, temperature=0.05,
                                                                 max_new_tokens=320),
                      progress=False)
    evaluated = read_records(tmp_path / "samples.parquet")
    rollout = recorded_rollouts[0]
    assert rollout["answer_code"] == [s["code"] for s in evaluated]
    assert rollout["answer_error"] == [s["episode_error"] for s in evaluated]
    assert rollout["turns"] == [s["turns"] for s in evaluated]
    assert rollout["tool_calls"] == [s["tool_calls"] for s in evaluated] and \
        all(calls >= 1 for calls in rollout["tool_calls"])
    # the trained tokens are the model's turns, which evaluation saw as assistant turns
    tokenizer = AutoTokenizer.from_pretrained(sft)
    for ids, mask, sample in zip(rollout["completion_ids"], rollout["env_mask"], evaluated,
                                 strict=True):
        sampled = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m])
        tool_results = [m["content"] for m in sample["transcript"] if m["role"] == "tool"]
        assert tool_results and all(result not in sampled for result in tool_results)
        # an accepted submission ends the episode: the model never sees its result
        shown = tool_results[:-1] if sample["code"] is not None and setting == "agentic" \
            else tool_results
        assert all(result in tokenizer.decode(ids) for result in shown)
