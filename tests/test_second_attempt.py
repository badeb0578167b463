"""Second attempts at evaluation, and the second-attempt table."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_training import FAST_SUM, SLOW_SUM, SPEC, answer, sum_problem

from codefrontier.analysis.second_attempt_table import SECOND_ATTEMPT_SCHEMA, second_attempt_rows
from codefrontier.base.provenance import read_provenance
from codefrontier.base.tables import read_records, write_records
from codefrontier.evaluate.second_attempt import second_attempt_conversation
from codefrontier.models.embedded import init_embedded_model
from codefrontier.problems.schema import save_problems
from codefrontier.settings.base import SAMPLES_SCHEMA

OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
STATEMENT = "Sum the list.\n\nExample 1\nInput:\n3\n1 2 3\nExpected output:\n6\n"


def verdict(pid, sid, outcome):
    return {"problem_id": pid, "sample_id": sid, "outcome": outcome}


def test_corrected_rates_are_split_by_the_first_failure():
    first = [verdict("a", 0, "optimization_failure"), verdict("a", 1, "correctness_failure"),
             verdict("b", 0, "optimization_failure"), verdict("b", 1, "correctness_failure"),
             verdict("b", 2, "correct")]
    second = [verdict("a", 0, "correct"), verdict("a", 1, "correctness_failure"),
              verdict("b", 0, "correct"), verdict("b", 1, "format_error")]
    rows = {r["first_failure"]: r for r in second_attempt_rows(first, second, "m", "reasoning", "sft")}
    assert set(rows) == {"optimization_failure", "correctness_failure", "all"}
    assert (rows["optimization_failure"]["attempts"], rows["optimization_failure"]["corrected"]) == (2, 2)
    assert rows["correctness_failure"]["corrected_rate"] == 0.0
    assert rows["correctness_failure"]["second_format_error"] == 0.5
    assert rows["all"]["corrected_rate"] == 0.5 and rows["all"]["problems"] == 2
    # a: 0 of 2 first attempts correct, 1 corrected -> 1/2 solved within two, pass@2 0;
    # b: 1 of 3 correct, 1 corrected -> 2/3 solved within two, pass@2 = 1 − C(2,2)/C(3,2)
    assert rows["all"]["solved_within_two"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert rows["all"]["first_pass_at_2"] == pytest.approx((0 + 2 / 3) / 2)
    assert rows["optimization_failure"]["solved_within_two"] is None
    assert set(rows["all"]) == set(SECOND_ATTEMPT_SCHEMA.names)


def test_the_second_attempt_conversation_returns_the_program_then_the_feedback():
    problem = dataclasses.replace(sum_problem(), statement=STATEMENT)
    conversation = second_attempt_conversation(problem, FAST_SUM, "Your program gave a wrong answer.")
    assert [m["role"] for m in conversation] == ["system", "user", "assistant", "user"]
    assert FAST_SUM.strip() in conversation[2]["content"]
    assert conversation[-1]["content"] == "Your program gave a wrong answer."


def cli(*args):
    result = subprocess.run([sys.executable, "-m", "codefrontier.cli", *map(str, args)],
                            capture_output=True, text=True, env=OFFLINE, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.mark.slow
def test_second_attempts_of_a_real_model_are_judged_and_tabled(tmp_path):
    problem = dataclasses.replace(sum_problem(), statement=STATEMENT)
    save_problems([problem], tmp_path / "eval.parquet")
    wrong = "n = int(input())\nprint(sum(map(int, input().split())) + 1)\n"
    firsts = [(0, answer(FAST_SUM)), (1, answer(SLOW_SUM)), (2, answer(wrong)), (3, "no code")]
    write_records([{"problem_id": problem.problem_id, "sample_id": sid, "setting": "reasoning",
                    "completion": text, "finish_reason": "stop", "prompt_tokens": 1,
                    "completion_tokens": 1, "turns": 1, "tool_calls": 0, "transcript": [],
                    "episode_error": None, "code": None, "answer_source": "final_turn"}
                   for sid, text in firsts],
                  tmp_path / "m" / "reasoning" / "sft" / "samples.parquet", schema=SAMPLES_SCHEMA)
    folder = tmp_path / "m" / "reasoning" / "sft"
    cli("judge", "--problems", tmp_path / "eval.parquet", "--samples", folder / "samples.parquet",
        "--out", folder / "verdicts.parquet", "--workers", 1, "--quiet")
    outcomes = [v["outcome"] for v in read_records(folder / "verdicts.parquet")]
    assert outcomes == ["correct", "optimization_failure", "correctness_failure", "format_error"]

    model = init_embedded_model(tmp_path / "model", [tmp_path / "eval.parquet"], SPEC)
    cli("second-attempt", "sample", "--model", model, "--problems", tmp_path / "eval.parquet",
        "--samples", folder / "samples.parquet", "--verdicts", folder / "verdicts.parquet",
        "--max-new-tokens", 12, "--temperature", 0, "--max-feedback-tokens", 2000,
        "--out", folder / "second-attempt" / "samples.parquet", "--quiet")
    seconds = read_records(folder / "second-attempt" / "samples.parquet")
    assert [s["sample_id"] for s in seconds] == [1, 2]  # the optimization and correctness failures
    feedback = [m["content"] for m in seconds[0]["transcript"] if m["role"] == "user"][-1]
    assert "exceeded the time limit" in feedback and "every example" in feedback
    wrong_feedback = [m["content"] for m in seconds[1]["transcript"] if m["role"] == "user"][-1]
    assert "Your output:\n7" in wrong_feedback
    assert seconds[0]["transcript"][-1]["role"] == "assistant"

    cli("judge", "--problems", tmp_path / "eval.parquet", "--samples",
        folder / "second-attempt" / "samples.parquet", "--out", folder / "second-attempt" / "verdicts.parquet",
        "--workers", 1, "--quiet")
    cli("second-attempt", "table", "--verdicts", folder / "verdicts.parquet", "--out",
        tmp_path / "second_attempts.parquet")
    table = pq.read_table(tmp_path / "second_attempts.parquet")
    assert table.schema.names == SECOND_ATTEMPT_SCHEMA.names
    provenance = read_provenance(tmp_path / "second_attempts.parquet")
    assert provenance["kind"] == "second_attempt_table" and [Path(i["path"]).parts[-2:] for i in
                                                     provenance["inputs"]] == [
        (folder.name, "verdicts.parquet"), ("second-attempt", "verdicts.parquet")]
    rows = {r["first_failure"]: r for r in table.to_pylist()}
    assert rows["all"]["attempts"] == 2 and rows["optimization_failure"]["attempts"] == 1
    assert rows["all"]["corrected"] + sum(  # every second attempt has one outcome
        rows["all"][f"second_{o}"] for o in ("format_error", "correctness_failure",
                                             "optimization_failure")) * 2 == pytest.approx(2)
