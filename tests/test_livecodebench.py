"""The LiveCodeBench loader on fixture files in the upstream layout and encoding."""

import base64
import json
import pickle
import subprocess
import sys
import zlib
from datetime import date

import pytest
from conftest import assert_fails_offline

from codefrontier.judge import JudgePool, Sample
from codefrontier.loaders.hub import DatasetUnavailable
from codefrontier.loaders.livecodebench import (
    decode_private_tests,
    load_livecodebench,
    release_files,
)
from codefrontier.problems.schema import load_problems


def encode_private(cases: list[dict]) -> str:
    """LiveCodeBench's encoding: base64 of zlib of a pickled JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


ATCODER = {
    "question_title": "Add Two", "question_content": "Print A+B.", "platform": "atcoder",
    "question_id": "abc300_a", "contest_id": "abc300", "contest_date": "2023-04-29T00:00:00",
    "starter_code": "", "difficulty": "easy",
    "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
    "private_test_cases": encode_private([{"input": "40 2\n", "output": "42\n", "testtype": "stdin"},
                                          {"input": "0 0\n", "output": "0\n", "testtype": "stdin"}]),
    "metadata": "{}",
}
LEETCODE = {
    "question_title": "Sum of Array", "question_content": "Return the sum of nums.",
    "platform": "leetcode", "question_id": "3000", "contest_id": "weekly-contest-380",
    "contest_date": "2024-01-14T00:00:00",
    "starter_code": "class Solution:\n    def total(self, nums: List[int]) -> int:\n        ",
    "difficulty": "medium",
    "public_test_cases": json.dumps([{"input": "[1, 2, 3]", "output": "6", "testtype": "functional"}]),
    "private_test_cases": json.dumps([{"input": "[]", "output": "0", "testtype": "functional"}]),
    "metadata": json.dumps({"func_name": "total"}),
}
CODEFORCES = {**ATCODER, "question_id": "1900A", "platform": "codeforces", "difficulty": "hard",
              "contest_id": "1900", "contest_date": "2024-06-01T00:00:00"}


@pytest.fixture
def data_dir(tmp_path):
    (tmp_path / "test.jsonl").write_text(json.dumps(ATCODER) + "\n" + json.dumps(LEETCODE) + "\n")
    (tmp_path / "test2.jsonl").write_text(json.dumps(CODEFORCES) + "\n")
    return tmp_path


def test_release_versions_name_their_files():
    assert release_files("release_v1") == ["test.jsonl"]
    assert release_files("release_v3") == ["test.jsonl", "test2.jsonl", "test3.jsonl"]
    assert release_files("v2") == ["test2.jsonl"]
    assert release_files("v4_v6") == ["test4.jsonl", "test5.jsonl", "test6.jsonl"]
    with pytest.raises(ValueError, match="unknown LiveCodeBench version"):
        release_files("release_v99")


def test_fields_map_to_the_schema(data_dir):
    atcoder, leetcode = load_livecodebench("release_v1", data_dir=data_dir)
    assert atcoder.problem_id == "livecodebench/abc300_a"
    assert (atcoder.title, atcoder.statement, atcoder.difficulty) == ("Add Two", "Print A+B.", "easy")
    assert (atcoder.kind, atcoder.func_name, atcoder.source) == ("stdin", "", "livecodebench/atcoder")
    assert [(t.input, t.output) for t in atcoder.tests] == [("1 2\n", "3\n"), ("40 2\n", "42\n"),
                                                            ("0 0\n", "0\n")]
    assert (leetcode.kind, leetcode.func_name) == ("call", "total")
    assert leetcode.starter_code.startswith("class Solution")
    assert [(t.input, t.output) for t in leetcode.tests] == [("[1, 2, 3]", "6"), ("[]", "0")]


def test_filters(data_dir):
    def ids(**filters):
        return [p.problem_id.split("/")[1] for p in load_livecodebench(data_dir=data_dir,
                                                                        version="release_v2", **filters)]

    assert ids() == ["abc300_a", "3000", "1900A"]
    assert ids(start_date=date(2024, 1, 1)) == ["3000", "1900A"]
    assert ids(end_date=date(2024, 1, 14)) == ["abc300_a", "3000"]
    assert ids(difficulties={"hard"}) == ["1900A"]
    assert ids(platforms={"leetcode", "atcoder"}) == ["abc300_a", "3000"]
    assert [p.problem_id for p in load_livecodebench("v2", data_dir=data_dir)] == [
        "livecodebench/1900A"]


def test_private_tests_in_both_encodings():
    cases = [{"input": "1", "output": "1", "testtype": "stdin"}]
    assert decode_private_tests(json.dumps(cases)) == cases
    assert decode_private_tests(encode_private(cases)) == cases


def test_a_pickle_that_names_a_class_is_refused():
    hostile = base64.b64encode(zlib.compress(pickle.dumps(date(2024, 1, 1)))).decode()
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        decode_private_tests(hostile)


def test_missing_local_files_fail_clearly(tmp_path):
    with pytest.raises(DatasetUnavailable, match=r"missing test\.jsonl"):
        load_livecodebench("release_v1", data_dir=tmp_path)


def test_an_unreachable_hub_fails_with_a_clear_message(tmp_path):
    assert_fails_offline("from codefrontier.loaders.livecodebench import load_livecodebench\n"
                         "load_livecodebench('release_v1')\n", tmp_path)


@pytest.mark.slow
def test_loaded_problems_run_in_the_judge(data_dir):
    problems = {p.problem_id: p for p in load_livecodebench("release_v1", data_dir=data_dir)}
    samples = [Sample("livecodebench/abc300_a", 0, code="a, b = map(int, input().split())\nprint(a + b)"),
               Sample("livecodebench/3000", 0,
                      code="class Solution:\n    def total(self, nums: List[int]) -> int:\n"
                           "        return sum(nums)\n")]
    with JudgePool(workers=1) as pool:
        assert [r.outcome for r in pool.judge(problems, samples)] == ["correct", "correct"]


def test_the_build_command_writes_a_filtered_problem_file(data_dir, tmp_path):
    out = tmp_path / "lcb.parquet"
    done = subprocess.run(
        [sys.executable, "-m", "codefrontier.cli", "problems", "build", "--source", "livecodebench",
         "--release", "release_v2", "--start-date", "2024-01-01", "--platform", "codeforces",
         "--data-dir", str(data_dir), "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [p.problem_id for p in load_problems(out)] == ["livecodebench/1900A"]


def test_the_loader_yields_exactly_the_tests_livecodebenchs_own_decoder_does(tmp_path):
    """LiveCodeBench's own record decoder (`CodeGenerationProblem`, from the
    nvidia-livecodebench package) and the loader read the same rows: private tests as
    JSON and as base64 of zlib of a pickled JSON string, stdin and functional problems,
    tests with multi-line inputs, unicode and empty outputs."""
    from livecodebench.benchmarks.code_generation import CodeGenerationProblem, TestType

    stdin_cases = [{"input": "3\n1 2 3\n", "output": "6\n", "testtype": "stdin"},
                   {"input": "1\nλ\n", "output": "\n", "testtype": "stdin"}]
    functional = [{"input": "[1, 2]\n3", "output": "[1, 2, 3]", "testtype": "functional"},
                  {"input": "[]\n0", "output": "[0]", "testtype": "functional"}]
    rows = [
        {**ATCODER, "question_id": "abc301_b", "private_test_cases": encode_private(stdin_cases)},
        {**ATCODER, "question_id": "abc301_c", "private_test_cases": json.dumps(stdin_cases)},
        {**LEETCODE, "question_id": "3001", "private_test_cases": encode_private(functional),
         "metadata": json.dumps({"func_name": "total"})},
        {**LEETCODE, "question_id": "3002", "private_test_cases": json.dumps(functional)},
    ]
    (tmp_path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = load_livecodebench("release_v1", data_dir=tmp_path)
    for row, problem in zip(rows, loaded, strict=True):
        upstream = CodeGenerationProblem(**row)
        cases = upstream.public_test_cases + upstream.private_test_cases
        assert [(t.input, t.output) for t in problem.tests] == [(c.input, c.output)
                                                               for c in cases]
        functional_problem = any(c.testtype == TestType.FUNCTIONAL for c in cases)
        assert problem.kind == ("call" if functional_problem else "stdin")
        assert problem.func_name == (upstream.metadata.get("func_name", "")
                                     if functional_problem else "")
        assert problem.starter_code == upstream.starter_code
        assert (problem.title, problem.statement) == (upstream.question_title,
                                                      upstream.question_content)
        assert problem.difficulty == upstream.difficulty.value
