"""Checking the suite's limits with the real judge.

For every problem: the efficient reference passes every test within a third of
the time limit; the slow reference passes the small decades and fails by TLE
or MLE, both in the normal run and on the largest test alone; the buggy variant
fails. So the suite yields optimization failures by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from codefrontier.judge import JudgePool, Sample
from codefrontier.problems import Problem
from codefrontier.suite.spec import SuiteProblem

EFFICIENT_SHARE_OF_LIMIT = 1 / 3
SLOW_MUST_PASS_BYTES = 100  # the slow reference passes every test shorter than this


@dataclass
class Calibration:
    problem_id: str
    time_limit_s: float
    efficient_outcome: str
    efficient_max_cpu_s: float
    slow_outcome: str | None
    slow_passed_up_to: int | None  # largest input length passed before failing
    slow_largest_verdict: str | None
    buggy_outcome: str | None

    @property
    def problems(self) -> list[str]:
        found = []
        if self.efficient_outcome != "correct":
            found.append(f"efficient reference is {self.efficient_outcome}")
        if self.efficient_max_cpu_s > self.time_limit_s * EFFICIENT_SHARE_OF_LIMIT:
            found.append(f"efficient reference takes {self.efficient_max_cpu_s:.2f} s of "
                         f"{self.time_limit_s} s")
        if self.slow_outcome is not None:
            if self.slow_outcome != "optimization_failure":
                found.append(f"slow reference is {self.slow_outcome}")
            if (self.slow_passed_up_to or 0) < SLOW_MUST_PASS_BYTES:
                found.append(f"slow reference passes only up to {self.slow_passed_up_to} bytes")
            if self.slow_largest_verdict not in ("TLE", "MLE"):
                found.append(f"slow reference gets {self.slow_largest_verdict} on the largest test")
        if self.buggy_outcome == "correct":
            found.append("buggy variant passes every test")
        return found


def _largest_test_only(problem: Problem) -> Problem:
    largest = problem.tests_by_input_length()[-1]
    return replace(problem, problem_id=problem.problem_id + "#largest", tests=(largest,))


def calibrate(pairs: list[tuple[SuiteProblem, Problem]], pool: JudgePool) -> list[Calibration]:
    problems: dict[str, Problem] = {}
    samples: list[Sample] = []
    for spec, problem in pairs:
        problems[problem.problem_id] = problem
        samples.append(Sample(problem.problem_id, 0, code=spec.efficient))
        if spec.slow is not None:
            samples.append(Sample(problem.problem_id, 1, code=spec.slow))
            largest = _largest_test_only(problem)
            problems[largest.problem_id] = largest
            samples.append(Sample(largest.problem_id, 1, code=spec.slow))
        if spec.buggy is not None:
            samples.append(Sample(problem.problem_id, 2, code=spec.buggy))
    efficient_runs = pool.judge(problems, [s for s in samples if s.sample_id == 0], all_tests=True)
    other_runs = pool.judge(problems, [s for s in samples if s.sample_id != 0])
    by_key = {(r.problem_id, r.sample_id): r for r in efficient_runs + other_runs}
    reports = []
    for _, problem in pairs:
        pid = problem.problem_id
        efficient = by_key[(pid, 0)]
        slow = by_key.get((pid, 1))
        slow_largest = by_key.get((pid + "#largest", 1))
        buggy = by_key.get((pid, 2))
        reports.append(Calibration(
            problem_id=pid, time_limit_s=problem.time_limit_s,
            efficient_outcome=efficient.outcome, efficient_max_cpu_s=max(efficient.cpu_s),
            slow_outcome=slow.outcome if slow else None,
            slow_passed_up_to=slow.max_passed_input_len if slow else None,
            slow_largest_verdict=slow_largest.verdicts[0] if slow_largest else None,
            buggy_outcome=buggy.outcome if buggy else None))
    return reports
