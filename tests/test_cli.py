"""The `codefrontier judge` command, end to end through files."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from codefrontier.base.tables import read_metadata

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def codefrontier(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codefrontier.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_judges_the_examples_into_a_verdicts_table(tmp_path):
    out = tmp_path / "verdicts.parquet"
    done = codefrontier("judge", "--problems", str(EXAMPLES / "problems.jsonl"),
                        "--samples", str(EXAMPLES / "samples.jsonl"), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    assert "judge sandbox:" in done.stderr  # the isolation level is logged
    table = pd.read_parquet(out)
    assert list(table.columns) == [
        "problem_id", "sample_id", "outcome", "verdicts", "input_lens", "cpu_s", "peak_mb",
        "timing_runs", "first_failure", "max_passed_input_len", "format_error_cause", "tle_cause", "error",
        "isolation"]
    assert table["outcome"].tolist() == ["correct", "optimization_failure", "correctness_failure",
                                         "format_error", "correct", "optimization_failure"]
    slow = table.iloc[1]
    assert list(slow["verdicts"][-1:]) == ["TLE"] and slow["tle_cause"] == "cpu"
    assert slow["max_passed_input_len"] == slow["input_lens"][int(slow["first_failure"]) - 1]
    metadata = read_metadata(out)
    assert json.loads(metadata["isolation"])["level"] == table["isolation"].iloc[0]
    assert metadata["judge_workers"] == str(len(os.sched_getaffinity(0)))
    assert metadata["judge_worker_losses"] == "0"


def test_all_tests_flag(tmp_path):
    out = tmp_path / "verdicts.parquet"
    done = codefrontier("judge", "--problems", str(EXAMPLES / "problems.jsonl"),
                        "--samples", str(EXAMPLES / "samples.jsonl"), "--out", str(out), "-q",
                        "--all-tests", "--workers", "1")
    assert done.returncode == 0, done.stderr
    table = pd.read_parquet(out)
    ran = table[table.outcome != "format_error"]
    # every test, unless a run out of time or memory ended the judging
    assert all(len(v) == len(lens) or v[-1] in ("TLE", "MLE")
               for v, lens in zip(ran.verdicts, ran.input_lens, strict=True))
    assert any(list(v).count("WA") > 1 for v in ran.verdicts)  # ran past its first failure


def test_code_column_skips_extraction(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"problem_id": "example/count-pairs", "sample_id": 0,
                                   "completion": "no code at all",
                                   "code": "print(0)"}) + "\n")
    out = tmp_path / "verdicts.parquet"
    done = codefrontier("judge", "--problems", str(EXAMPLES / "problems.jsonl"),
                        "--samples", str(samples), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    assert pd.read_parquet(out)["outcome"].tolist() == ["correctness_failure"]


@pytest.mark.parametrize(
    ("samples_text", "message"),
    [
        ('{"problem_id": "nope", "sample_id": 0, "completion": ""}\n', "not in the problem set"),
        ('{"problem_id": "example/count-pairs", "completion": ""}\n', "sample_id"),
        ("{not json\n", "invalid JSON"),
    ],
)
def test_bad_input_fails_with_a_clear_message(tmp_path, samples_text, message):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(samples_text)
    done = codefrontier("judge", "--problems", str(EXAMPLES / "problems.jsonl"),
                        "--samples", str(samples), "--out", str(tmp_path / "v.parquet"), "-q")
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "v.parquet").exists()


def test_missing_file_fails_with_a_clear_message(tmp_path):
    done = codefrontier("judge", "--problems", str(tmp_path / "none.parquet"),
                        "--samples", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "v.parquet"))
    assert done.returncode == 2 and "no such file" in done.stderr


def test_episode_limits_belong_to_their_setting(tmp_path):
    done = codefrontier("sample", "--model", "m", "--problems", "p.parquet", "--setting",
                        "tool_use", "--max-turns", "3", "--out", str(tmp_path / "s.parquet"))
    assert done.returncode != 0
    assert "--max-turns is a limit of the agentic setting, not of tool_use" in done.stderr


def test_an_episode_error_is_judged_as_that_format_error(tmp_path):
    samples = tmp_path / "samples.jsonl"
    rows = [{"problem_id": "example/count-pairs", "sample_id": 0, "completion": "```python\nprint(1)\n```",
             "episode_error": "no_submission"},
            {"problem_id": "example/count-pairs", "sample_id": 1, "completion": "text",
             "episode_error": "malformed_tool_call"}]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "verdicts.parquet"
    done = codefrontier("judge", "--problems", str(EXAMPLES / "problems.jsonl"),
                        "--samples", str(samples), "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    table = pd.read_parquet(out)
    assert table["outcome"].tolist() == ["format_error", "format_error"]
    assert table["format_error_cause"].tolist() == ["no_submission", "malformed_tool_call"]
