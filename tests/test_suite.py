"""The bundled suite: every problem well-formed, covered in every decade, calibrated."""

import hashlib
import os
import subprocess
import sys

import pytest

from codefrontier.judge import JudgePool
from codefrontier.problems import load_problems
from codefrontier.rewards import decade
from codefrontier.suite.build import (
    DECADES,
    load_suite,
    split_of,
    to_problem,
)
from codefrontier.suite.calibrate import calibrate

SUITE = load_suite()


@pytest.fixture(scope="module")
def built():
    return {spec.slug: to_problem(spec) for spec in SUITE}


@pytest.mark.parametrize("spec", SUITE, ids=lambda s: s.slug)
def test_every_decade_has_two_tests_and_edge_cases_come_first(spec, built):
    problem = built[spec.slug]
    per_decade = {d: sum(decade(t.input_len) == d for t in problem.tests) for d in DECADES}
    assert all(n >= 2 for n in per_decade.values()), per_decade
    assert len(problem.tests) >= 2 * len(DECADES) + len(spec.edge_cases)
    assert spec.edge_cases, "edge cases double as the statement's examples"
    assert "Example 1" in problem.statement


def test_the_suite_meets_its_counts():
    assert len(SUITE) >= 48
    assert sum(s.kind == "call" for s in SUITE) >= 8
    assert sum(s.kind == "stdin" for s in SUITE) > len(SUITE) / 2
    for difficulty in ("easy", "medium", "hard"):
        assert sum(s.difficulty == difficulty for s in SUITE) >= 12, difficulty
    assert sum(s.slow is not None for s in SUITE) >= 0.75 * len(SUITE)
    assert len({s.slug for s in SUITE}) == len(SUITE)


def test_split_is_stratified_and_disjoint():
    splits = {s.slug: split_of(s, SUITE) for s in SUITE}
    for difficulty in ("easy", "medium", "hard"):
        slugs = [s.slug for s in SUITE if s.difficulty == difficulty]
        held_out = [slug for slug in slugs if splits[slug] == "eval"]
        assert len(held_out) == len(slugs) // 3


def test_build_is_byte_for_byte_deterministic(tmp_path):
    """Two separate processes (different hash seeds) write the same bytes."""
    digests = []
    for attempt in range(2):
        path = tmp_path / f"eval{attempt}.parquet"
        subprocess.run([sys.executable, "-m", "codefrontier.cli", "problems", "build",
                        "--split", "eval", "--out", str(path)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(attempt + 1)},
                       capture_output=True)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert {p.problem_id for p in load_problems(tmp_path / "eval0.parquet")} == {
        s.problem_id for s in SUITE if split_of(s, SUITE) == "eval"}


@pytest.mark.slow
def test_limits_are_calibrated_with_the_judge(built):
    """Efficient within a third of the limit; slow passes small decades, fails by time or
    memory, also on the largest test alone; buggy fails."""
    with JudgePool() as pool:
        reports = calibrate([(spec, built[spec.slug]) for spec in SUITE], pool)
    trouble = {r.problem_id: r.problems for r in reports if r.problems}
    assert trouble == {}
