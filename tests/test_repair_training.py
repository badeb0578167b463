"""Repair training: the replay buffer, the feedback turn's tokens, and two real GRPO steps
of first attempt -> feedback -> second attempt whose feedback carries no loss."""

from __future__ import annotations

import dataclasses
import json
import os
import random
from dataclasses import asdict

import pytest
from test_multi_turn_training import recorded_losses  # noqa: F401 - a fixture
from test_training import FAST_SUM, SLOW_SUM, answer, sum_problem

from codefrontier.base.tables import write_records
from codefrontier.evaluate.feedback import approx_tokens, judged_feedback
from codefrontier.judge import JudgePool, Sample
from codefrontier.models.embedded import EmbeddedModelSpec, init_embedded_model
from codefrontier.problems.schema import save_problems
from codefrontier.settings import reasoning
from codefrontier.train.grpo import JudgeReward
from codefrontier.train.repair import (
    Failure,
    RepairOptions,
    ReplayBuffer,
    replay_groups,
    row_groups,
)
from codefrontier.train.rollout import next_turn_ids

STATEMENT = "Sum the list.\n\nExample 1\nInput:\n3\n1 2 3\nExpected output:\n6\n"
WRONG_SUM = "n = int(input())\nprint(sum(map(int, input().split())) + 1)\n"
SPEC = EmbeddedModelSpec(vocab_size=600, hidden_size=96, intermediate_size=192,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1)


def problem():
    return dataclasses.replace(sum_problem(), statement=STATEMENT)


def failure(pid: str, step: int) -> Failure:
    return Failure(pid, "print(0)", "wrong", step)


def test_the_buffer_keeps_the_newest_failures_and_replays_the_newest_first():
    buffer = ReplayBuffer(capacity=2)
    for step, pid in enumerate("abc"):
        buffer.add(failure(pid, step))
    assert len(buffer) == 2  # a, the oldest, is gone
    assert buffer.take().problem_id == "c" and buffer.take().problem_id == "b"
    assert len(buffer) == 0


def test_groups_are_runs_of_one_problem():
    assert row_groups(["a", "a", "b", "b", "b", "a"]) == [range(0, 2), range(2, 5), range(5, 6)]
    assert row_groups([]) == []


@pytest.mark.parametrize(("groups", "buffered", "share", "replayed"),
                         [(4, 10, 0.25, 1), (4, 10, 0.5, 2), (4, 1, 0.5, 1), (4, 0, 1.0, 0),
                          (4, 10, 0.0, 0), (1, 3, 1.0, 1)])
def test_a_share_of_the_groups_replays_as_far_as_the_buffer_holds(groups, buffered, share,
                                                                   replayed):
    chosen = replay_groups(groups, buffered, share, random.Random(0))
    assert len(chosen) == replayed and len(set(chosen)) == replayed
    assert all(0 <= g < groups for g in chosen)
    assert chosen == replay_groups(groups, buffered, share, random.Random(0))  # seeded


def test_options_are_checked():
    with pytest.raises(ValueError, match="replay_share"):
        RepairOptions(replay_share=1.5)
    with pytest.raises(ValueError, match="at least 1"):
        RepairOptions(buffer_size=0)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    from codefrontier.models.checkpoint_io import load_tokenizer

    folder = tmp_path_factory.mktemp("tokenizer")
    save_problems([problem()], folder / "train.parquet")
    return load_tokenizer(str(init_embedded_model(folder / "init", [folder / "train.parquet"],
                                                  SPEC)))


def render(tokenizer, messages, **options) -> list[int]:
    text = tokenizer.apply_chat_template(messages, tokenize=False, **options)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def test_first_attempt_feedback_and_second_prompt_are_the_rendered_conversation(tokenizer):
    """The rollout's tokens (prompt, the policy's first attempt with its stop token, the
    feedback turn) are exactly what the chat template renders for the whole conversation,
    so the second attempt is sampled in the context the model would see at evaluation."""
    messages = reasoning.messages(problem())
    prompt = render(tokenizer, messages, add_generation_prompt=True)
    first = tokenizer(answer(WRONG_SUM), add_special_tokens=False)["input_ids"] + \
        [tokenizer.eos_token_id]
    feedback = "Your program gave a wrong answer on example 1.\nFix it."
    turn = next_turn_ids(tokenizer, [{"role": "user", "content": feedback}],
                         tokenizer.decode(first[-1:]))
    whole = render(tokenizer, [*messages, {"role": "assistant", "content": answer(WRONG_SUM)},
                               {"role": "user", "content": feedback}],
                   add_generation_prompt=True)
    assert prompt + first + turn == whole
    assert feedback.splitlines()[0] in tokenizer.decode(turn)


def test_the_reward_judges_the_final_attempt_when_a_rollout_names_it(judge):
    reward = JudgeReward("kinf", {"sum-list": sum_problem()}, judge, max_completion_length=50)
    # the completions hold both attempts (and are longer than max_completion_length);
    # what is judged is the final text: the second attempt
    cut = answer(FAST_SUM)[:20]  # a second attempt that ran out of tokens
    rewards = reward(prompts=[None] * 3, completions=[answer(WRONG_SUM)] * 3,
                     completion_ids=[[1] * 60] * 3, problem_id=["sum-list"] * 3,
                     final_text=[answer(FAST_SUM), answer(WRONG_SUM), cut],
                     final_truncated=[False, False, True])
    assert rewards == [1.0, 0.0, 0.0]


def test_the_reward_can_log_every_judged_sample(judge, tmp_path):
    """With a samples log, each judged sample's verdicts, CPU time per test and reward
    are written: what a run's rewards rest on, to compare two runs sample by sample."""
    import json

    from codefrontier.train.grpo import JUDGED_FIELDS

    log = tmp_path / "judged.jsonl"
    reward = JudgeReward("kinf", {"sum-list": sum_problem()}, judge, max_completion_length=50,
                         samples_path=log)
    rewards = reward(prompts=[None] * 2, completions=[answer(FAST_SUM), answer(WRONG_SUM)],
                     completion_ids=[[1] * 10] * 2, problem_id=["sum-list"] * 2)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["reward"] for e in entries] == rewards == [1.0, 0.0]
    assert set(entries[0]) == {"call", "step", "reward", *JUDGED_FIELDS}
    assert entries[0]["verdicts"] == ["AC"] * len(entries[0]["cpu_s"])
    assert entries[1]["outcome"] == "correctness_failure" and entries[1]["verdicts"][-1] == "WA"



RE_SUM = "n = int(input())\nprint(1 // (n - n))\n"
HOSTILE = "import sys\nsys.stdout.buffer.write(b'\\x00\\xff\\x1b[2J' * 20000)\n"
BY_VERDICT = [  # (first attempt, its first failing verdict): one of each kind
    (WRONG_SUM, "WA"), (RE_SUM, "RE"), (SLOW_SUM, "TLE"),
    ("x = bytearray(10 ** 10)", "MLE"),
    ("import sys\nwhile True: sys.stdout.write('x' * 65536)", "OLE"),
    (HOSTILE, "WA")]


@pytest.mark.parametrize(("program", "verdict"), BY_VERDICT)
def test_every_failed_attempt_gets_capped_feedback_without_hidden_data_and_no_reward(
        judge, program, verdict):
    """A failed attempt of each verdict, hostile output included, judged as a repair rollout
    judges it: its feedback stays under the cap, holds no hidden test's data and no control
    bytes, and as a final attempt it earns nothing."""
    task = problem()
    reward = JudgeReward("kinf", {task.problem_id: task}, judge, max_completion_length=400)
    (result,) = reward.judge([Sample(task.problem_id, 0, completion=answer(program))])
    assert result.verdicts[result.first_failure] == verdict
    feedback = judged_feedback(judge, task, program, asdict(result), 120, approx_tokens)
    assert approx_tokens(feedback) <= 120
    assert "\x00" not in feedback and "\x1b" not in feedback
    hidden = [t for t in task.tests if t.input not in STATEMENT]
    assert all(t.input.strip() not in feedback for t in hidden if len(t.input) > 8)
    assert reward(prompts=[None], completions=[""], completion_ids=[[1]],
                  problem_id=[task.problem_id], final_text=[answer(program)],
                  final_truncated=[False]) == [0.0]


def test_a_first_attempt_weight_blends_the_first_attempts_reward_in(judge):
    reward = JudgeReward("kinf", {"sum-list": sum_problem()}, judge, max_completion_length=50)
    # rows: solved at the first try; repaired; replayed (no first attempt in the completion)
    rewards = reward(prompts=[None] * 3, completions=[""] * 3, completion_ids=[[1]] * 3,
                     problem_id=["sum-list"] * 3, final_text=[answer(FAST_SUM)] * 3,
                     final_truncated=[False] * 3, first_reward=[1.0, 0.0, None],
                     first_attempt_weight=[0.5] * 3)
    assert rewards == [1.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="first_attempt_weight"):
        RepairOptions(first_attempt_weight=-0.1)


@pytest.fixture(scope="module")
def repairer(tmp_path_factory):
    """A tiny model that answers the problem wrongly and, given the feedback on that
    answer, with the right program."""
    from codefrontier.train.sft import run_sft

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    folder = tmp_path_factory.mktemp("repair-training")
    task = problem()
    save_problems([task], folder / "train.parquet")
    with JudgePool(workers=1) as pool:
        judged = pool.judge_one(task, Sample(task.problem_id, 0, code=WRONG_SUM))
        feedback = judged_feedback(pool, task, WRONG_SUM, asdict(judged))
    messages = [*reasoning.messages(task), {"role": "assistant", "content": answer(WRONG_SUM)},
                {"role": "user", "content": feedback},
                {"role": "assistant", "content": reasoning.answer("Fixed.", FAST_SUM)}]
    write_records([{"problem_id": task.problem_id, "variant": "repair", "setting": "reasoning",
                    "messages": json.dumps(messages), "tools": None}], folder / "sft.parquet")
    model = init_embedded_model(folder / "init", [folder / "train.parquet", folder / "sft.parquet"],
                                SPEC)
    sft = run_sft(str(model), folder / "sft.parquet", folder / "sft",
                  {"max_steps": 120, "learning_rate": 3e-3, "per_device_train_batch_size": 1,
                   "warmup_steps": 0, "logging_steps": 50, "save_strategy": "no"})
    return folder, sft, feedback


@pytest.mark.slow
def test_two_repair_steps_give_the_feedback_no_loss_and_replay_failures(
        repairer, recorded_losses, tmp_path):  # noqa: F811 - the fixture
    from transformers import AutoTokenizer

    from codefrontier.train.grpo import run_grpo

    folder, sft, feedback = repairer
    out = run_grpo(str(sft), folder / "train.parquet", "kinf", tmp_path / "rl",
                   {"max_steps": 2, "num_generations": 2, "per_device_train_batch_size": 2,
                    "max_completion_length": 120, "temperature": 0.05, "save_strategy": "no",
                    "logging_steps": 1},
                   judge_workers=1, repair=RepairOptions(replay_share=1.0, buffer_size=8))
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["repair"] == {"replay_share": 1.0, "buffer_size": 8,
                                    "max_feedback_tokens": 300, "first_attempt_weight": 0.0}
    calls = [json.loads(line) for line in (tmp_path / "rl.work" / "repair.jsonl").open()]
    # step 1: fresh episodes whose wrong first attempts get feedback and a second attempt;
    # step 2: the group replays those failures (second attempts only)
    assert calls[0]["fresh_rows"] == 2 and calls[0]["second_attempts"] == 2
    assert calls[0]["first/correctness_failure"] == 2
    assert calls[1]["replayed_rows"] == 2 and calls[1]["second_attempts"] == 0
    rewards = [json.loads(line) for line in (tmp_path / "rl.work" / "rewards.jsonl").open()]
    assert [entry["samples"] for entry in rewards] == [2, 2]

    tokenizer = AutoTokenizer.from_pretrained(out)
    first_step = recorded_losses[0]
    headline = feedback.splitlines()[0]
    for ids, completion, mask in zip(first_step["completion_ids"],
                                     first_step["completion_mask"], first_step["tool_mask"],
                                     strict=True):
        masked = tokenizer.decode(ids[(completion == 1) & (mask == 0)])
        trained = tokenizer.decode(ids[(completion == 1) & (mask == 1)])
        assert headline in masked  # the feedback turn is in the completion, without loss
        assert headline not in trained
        assert trained.count("```python") == 2  # both attempts carry the loss
    # replayed rows: the prompt is the task's; the failed program and its feedback open the
    # completion without loss, and the one attempt after them carries it
    replayed = recorded_losses[-1]
    assert "tool_mask" in replayed
    for ids, completion, mask in zip(replayed["completion_ids"], replayed["completion_mask"],
                                     replayed["tool_mask"], strict=True):
        masked = tokenizer.decode(ids[(completion == 1) & (mask == 0)])
        trained = tokenizer.decode(ids[(completion == 1) & (mask == 1)])
        assert headline in masked and "My program:" in masked
        assert trained.count("```python") == 1 and headline not in trained
