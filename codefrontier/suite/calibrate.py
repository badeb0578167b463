"""Checking the suite's limits with the real judge, by margins rather than by one verdict.

A problem whose references sit near its time limit makes the optimization-failure
rate (the quantity under study) depend on the machine and its load. So, in CPU
time, for every problem:
- the efficient reference passes every test within a third of the limit;
- the slow reference passes every test shorter than 100 bytes, fails by TLE or MLE
  in the normal run, and needs at least three times the limit on the largest test
  (measured with the limit raised to that much: it must still run out of time, or
  of memory);
- the buggy variant fails.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from codefrontier.judge import JudgePool, Sample
from codefrontier.problems.schema import Problem
from codefrontier.suite.spec import Instance

EFFICIENT_SHARE_OF_LIMIT = 1 / 3
SLOW_LIMIT_FACTOR = 3.0  # the slow reference needs at least this many limits on the largest test
SLOW_MUST_PASS_BYTES = 100  # the slow reference passes every test shorter than this
RAISED_SUFFIX = "#largest-raised"


@dataclass
class Calibration:
    problem_id: str
    time_limit_s: float
    efficient_outcome: str
    efficient_max_cpu_s: float
    slow_outcome: str | None
    slow_passed_up_to: int | None  # largest input length passed before failing
    slow_largest_verdict: str | None  # on the largest test, under the raised limit
    slow_largest_cpu_s: float | None  # ... and its CPU time (capped by the raised limit)
    buggy_outcome: str | None

    @property
    def efficient_margin(self) -> float:
        """How many times the efficient reference's slowest test fits in the limit."""
        return self.time_limit_s / max(self.efficient_max_cpu_s, 1e-3)

    @property
    def slow_margin(self) -> str:
        """The slow reference's CPU time on the largest test, in limits: `≥3×` when it ran
        out of the raised limit, the measured ratio when it finished."""
        if self.slow_largest_verdict is None:
            return "-"
        if self.slow_largest_verdict == "TLE":
            return f"≥{SLOW_LIMIT_FACTOR:g}×"
        if self.slow_largest_verdict == "MLE":
            return "MLE"
        return f"{self.slow_largest_cpu_s / self.time_limit_s:.1f}×"

    @property
    def problems(self) -> list[str]:
        found = []
        if self.efficient_outcome != "correct":
            found.append(f"efficient reference is {self.efficient_outcome}")
        if self.efficient_max_cpu_s > self.time_limit_s * EFFICIENT_SHARE_OF_LIMIT:
            found.append(f"efficient reference takes {self.efficient_max_cpu_s:.2f} s of "
                         f"{self.time_limit_s:g} s (more than a third)")
        if self.slow_outcome is not None:
            if self.slow_outcome != "optimization_failure":
                found.append(f"slow reference is {self.slow_outcome}")
            if (self.slow_passed_up_to or 0) < SLOW_MUST_PASS_BYTES:
                found.append(f"slow reference passes only up to {self.slow_passed_up_to} bytes")
            if self.slow_largest_verdict not in ("TLE", "MLE"):
                found.append(f"slow reference finishes the largest test in "
                             f"{self.slow_largest_cpu_s:.2f} s, under {SLOW_LIMIT_FACTOR:g}× "
                             f"the {self.time_limit_s:g} s limit ({self.slow_largest_verdict})")
        if self.buggy_outcome == "correct":
            found.append("buggy variant passes every test")
        return found


def largest_test_with_raised_limit(problem: Problem) -> Problem:
    """Only the largest test, with the time limit raised to SLOW_LIMIT_FACTOR times."""
    largest = problem.tests_by_input_length()[-1]
    return replace(problem, problem_id=problem.problem_id + RAISED_SUFFIX, tests=(largest,),
                   time_limit_s=problem.time_limit_s * SLOW_LIMIT_FACTOR)


def calibrate(pairs: list[tuple[Instance, Problem]], pool: JudgePool) -> list[Calibration]:
    """Judge each instance's efficient reference and buggy variant on its problem, and the
    slow reference on the first instance of each family (knobs change constants and
    names, not running times; the raised limit costs three limits per instance)."""
    problems: dict[str, Problem] = {}
    samples: list[Sample] = []
    slow_checked: set[str] = set()
    for spec, problem in pairs:
        problems[problem.problem_id] = problem
        samples.append(Sample(problem.problem_id, 0, code=spec.efficient))
        if spec.slow is not None and spec.family.slug not in slow_checked:
            slow_checked.add(spec.family.slug)
            samples.append(Sample(problem.problem_id, 1, code=spec.slow))
            raised = largest_test_with_raised_limit(problem)
            problems[raised.problem_id] = raised
            samples.append(Sample(raised.problem_id, 1, code=spec.slow))
        if spec.buggy is not None:
            samples.append(Sample(problem.problem_id, 2, code=spec.buggy))
    # the long runs first, so that the pool's workers finish together
    samples.sort(key=lambda s: not s.problem_id.endswith(RAISED_SUFFIX))
    efficient_runs = pool.judge(problems, [s for s in samples if s.sample_id == 0], all_tests=True)
    other_runs = pool.judge(problems, [s for s in samples if s.sample_id != 0])
    by_key = {(r.problem_id, r.sample_id): r for r in efficient_runs + other_runs}
    reports = []
    for _, problem in pairs:
        pid = problem.problem_id
        efficient = by_key[(pid, 0)]
        slow = by_key.get((pid, 1))
        raised = by_key.get((pid + RAISED_SUFFIX, 1))
        buggy = by_key.get((pid, 2))
        reports.append(Calibration(
            problem_id=pid, time_limit_s=problem.time_limit_s,
            efficient_outcome=efficient.outcome, efficient_max_cpu_s=max(efficient.cpu_s),
            slow_outcome=slow.outcome if slow else None,
            slow_passed_up_to=slow.max_passed_input_len if slow else None,
            slow_largest_verdict=raised.verdicts[0] if raised else None,
            slow_largest_cpu_s=raised.cpu_s[0] if raised else None,
            buggy_outcome=buggy.outcome if buggy else None))
    return reports


def calibration_table(reports: list[Calibration]) -> str:
    """The reports as a fixed-width table, one line per problem, and a summary line."""
    lines = [f"{'problem':<34}{'limit s':>8}{'eff. cpu s':>11}{'limit/eff':>10}"
             f"{'slow passes':>12}{'slow largest':>13}{'÷ limit':>8}  ok"]
    for report in reports:
        lines.append(
            f"{report.problem_id:<34}{report.time_limit_s:>8g}{report.efficient_max_cpu_s:>11.3f}"
            f"{report.efficient_margin:>9.1f}×{report.slow_passed_up_to or '-':>12}"
            f"{report.slow_largest_verdict or '-':>13}{report.slow_margin:>8}  "
            f"{'; '.join(report.problems) or 'yes'}")
    calibrated = sum(not report.problems for report in reports)
    lines.append(f"{calibrated} of {len(reports)} problems calibrated")
    return "\n".join(lines)


def calibration_pairs(split: str | None, count: int | None = None,
                      difficulties: Collection[str] | None = None,
                      families: Collection[str] | None = None, knob_pool: int | None = None,
                      disjoint_from: Collection[str] = ()) -> list[tuple[Instance, Problem]]:
    """The instances to calibrate with their problems: without a split, the first train
    instance of each family; with one, every instance of that build, as `problems build`
    makes it (tests drawn again where `disjoint_from`'s problems have their input)."""
    from codefrontier.problems.sources import test_inputs
    from codefrontier.suite.build import build_bundled, instances, load_families, to_problem

    if split is None:
        chosen = [f for f in load_families() if not families or f.slug in families]
        return [(instance, to_problem(instance))
                for instance in (family.instance("train", 0) for family in chosen)]
    selection = (split, count, difficulties, families, knob_pool)
    return list(zip(instances(*selection),
                    build_bundled(split, count, test_inputs(list(disjoint_from)),
                                  *selection[2:]), strict=True))
