"""The CodeContests+ loader on parquet parts written in the upstream layout and types."""

import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import assert_fails_offline

from codefrontier.judge import JudgePool, Sample
from codefrontier.loaders.codecontests_plus import (
    load_codecontests_plus,
    needs_special_checker,
)
from codefrontier.loaders.hub import DatasetUnavailable
from codefrontier.problems.schema import load_problems

SUBMISSION = pa.struct([("code", pa.string()), ("language", pa.string())])
TEST_CASE = pa.struct([("input", pa.string()), ("output", pa.string())])
UPSTREAM_SCHEMA = pa.schema([
    ("id", pa.string()), ("source", pa.string()), ("title", pa.string()),
    ("description", pa.string()), ("time_limit", pa.int64()), ("memory_limit", pa.int64()),
    ("validator", pa.string()), ("generator", pa.string()), ("generator_cmd", pa.string()),
    ("checker", pa.string()), ("correct_submissions", pa.list_(SUBMISSION)),
    ("incorrect_submissions", pa.list_(SUBMISSION)), ("test_cases", pa.list_(TEST_CASE)),
    ("true_positive_rate", pa.float64()), ("true_negative_rate", pa.float64()),
])

WCMP = """#include "testlib.h"
int main(int argc, char *argv[]) {
    setName("compare sequences of tokens");
    registerTestlibCmd(argc, argv);
    while (!ans.seekEof() && !ouf.seekEof()) { ans.readWord(); ouf.readWord(); }
}"""
ANY_VALID_PATH = """#include "testlib.h"
int main(int argc, char *argv[]) {
    setName("checks that the printed path is a shortest path");
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
}"""
RCMP9 = WCMP.replace("compare sequences of tokens",
                     "compare two sequences of doubles, max absolute or relative error = 1e-9")


def row(problem_id, checker="", source="Codeforces", tests=None, **extra):
    return {
        "id": problem_id, "source": source, "title": f"Problem {problem_id}",
        "description": f"Statement of {problem_id}.", "time_limit": 2500, "memory_limit": 512,
        "validator": "// validator", "generator": "// generator", "generator_cmd": "gen 1",
        "checker": checker,
        "correct_submissions": [{"code": "print(sum(map(int, input().split())))",
                                 "language": "PYTHON3"}],
        "incorrect_submissions": [{"code": "print(0)", "language": "PYTHON3"}],
        "test_cases": [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}]
        if tests is None else tests,
        "true_positive_rate": 1.0, "true_negative_rate": 0.97, **extra,
    }


@pytest.fixture
def data_dir(tmp_path):
    folder = tmp_path / "ccplus_1x"
    folder.mkdir()
    parts = [[row("1000A", WCMP), row("1000B", ANY_VALID_PATH), row("1000C", "")],
             [row("abc1_a", WCMP, source="AtCoder"), row("1000D", RCMP9),
              row("1000E", "", tests=[])]]
    for index, rows in enumerate(parts):
        table = pa.Table.from_pylist(rows, schema=UPSTREAM_SCHEMA)
        pq.write_table(table, folder / f"part-{index:05d}-of-00002.parquet")
    return tmp_path


def test_fields_map_to_the_schema(data_dir):
    problems, _ = load_codecontests_plus(data_dir=data_dir)
    first = problems[0]
    assert first.problem_id == "codecontests-plus/1000A"
    assert (first.title, first.statement) == ("Problem 1000A", "Statement of 1000A.")
    assert (first.source, first.kind, first.difficulty) == ("codecontests-plus/codeforces",
                                                            "stdin", "medium")
    assert (first.time_limit_s, first.memory_limit_mb) == (2.5, 512)
    assert [(t.input, t.output) for t in first.tests] == [("1 2\n", "3\n"), ("40 2\n", "42\n")]


def test_special_checkers_are_skipped_and_counted(data_dir):
    problems, report = load_codecontests_plus(data_dir=data_dir)
    assert [p.problem_id.split("/")[1] for p in problems] == ["1000A", "1000C", "abc1_a"]
    assert report.kept == 3
    assert report.skipped == {"special checker": 2, "no tests": 1}
    assert report.summary() == "kept 3, skipped 3 (1 no tests, 2 special checker)"
    kept_all, report = load_codecontests_plus(data_dir=data_dir, include_special_checkers=True)
    assert len(kept_all) == 5 and report.skipped == {"no tests": 1}


def test_checker_classification():
    assert not needs_special_checker("")
    assert not needs_special_checker(None)
    assert not needs_special_checker(WCMP)
    assert needs_special_checker(ANY_VALID_PATH)
    assert needs_special_checker(RCMP9)  # a tolerance other than the judge's 1e-6
    assert needs_special_checker("int main() { return 0; }")  # unnamed: cannot tell


def test_filters_and_limit(data_dir):
    def ids(**kwargs):
        return [p.problem_id.split("/")[1] for p in load_codecontests_plus(data_dir=data_dir,
                                                                           **kwargs)[0]]

    assert ids(sources={"atcoder"}) == ["abc1_a"]
    assert ids(limit=2) == ["1000A", "1000C"]
    assert ids(difficulties={"hard"}) == []


def test_ratings_map_to_difficulties(tmp_path):
    folder = tmp_path / "ccplus_1x"
    folder.mkdir()
    schema = UPSTREAM_SCHEMA.append(pa.field("rating", pa.int64()))
    rows = [row(f"r{rating}", rating=rating) for rating in (800, 1600, 2400)]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / "part-00000-of-00001.parquet")
    problems, _ = load_codecontests_plus(data_dir=tmp_path)
    assert [p.difficulty for p in problems] == ["easy", "medium", "hard"]


def test_unknown_config_and_missing_files_fail_clearly(data_dir, tmp_path):
    with pytest.raises(ValueError, match="unknown CodeContests\\+ config"):
        load_codecontests_plus(data_dir=data_dir, config="9x")
    with pytest.raises(DatasetUnavailable, match=r"missing ccplus_2x/\*\.parquet"):
        load_codecontests_plus(data_dir=data_dir, config="2x")


def test_an_unreachable_hub_fails_with_a_clear_message(tmp_path):
    assert_fails_offline("from codefrontier.loaders.codecontests_plus import load_codecontests_plus\n"
                         "load_codecontests_plus(limit=1)\n", tmp_path)


@pytest.mark.slow
def test_the_upstream_submissions_judge_as_labelled(data_dir):
    problems, _ = load_codecontests_plus(data_dir=data_dir, limit=1)
    problem = problems[0]
    raw = pq.read_table(data_dir / "ccplus_1x" / "part-00000-of-00002.parquet").to_pylist()[0]
    samples = [Sample(problem.problem_id, 0, code=raw["correct_submissions"][0]["code"]),
               Sample(problem.problem_id, 1, code=raw["incorrect_submissions"][0]["code"])]
    with JudgePool(workers=1) as pool:
        outcomes = [r.outcome for r in pool.judge({problem.problem_id: problem}, samples)]
    assert outcomes == ["correct", "correctness_failure"]


def test_the_build_command_is_deterministic_and_reports_skips(data_dir, tmp_path):
    outputs = []
    for name in ("a.parquet", "b.parquet"):
        out = tmp_path / name
        done = subprocess.run(
            [sys.executable, "-m", "codefrontier.cli", "problems", "build", "--source",
             "codecontests-plus", "--data-dir", str(data_dir), "--out", str(out)],
            capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "skipped 3 (1 no tests, 2 special checker)" in done.stdout
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(load_problems(tmp_path / "a.parquet")) == 3
