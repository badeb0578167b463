"""Checking the suite's limits with the real judge, by margins rather than by one verdict.

A problem whose programs sit near its time limit makes the optimization-failure
rate (the quantity under study) depend on the machine and its load. So, in CPU
time, for every problem:
- the efficient reference passes every test within a third of the limit;
- every slow program keeps its break decade d (spec.SlowProgram): it passes every
  test shorter than 10^d bytes within a third of the limit, and the first test of
  10^d bytes or more (the shortest it must fail) runs out of three times the limit
  (or of memory). It is judged once, with the limit raised to three times, on the
  tests in ascending order; the judge stops at its first failure. `margin=False`
  judges it under the limit itself (it must run out of that): a third of the time,
  without the margin's check;
- the buggy variant fails.

CPU time on a shared machine has spikes: one run in a few hundred can take three
times its usual time (CI measured a 0.3 s run at 0.87 s once), and a VM's speed drifts
with its host's load (the reference program's median of 9 took 0.34 to 0.55 s in three
calibrations within ten minutes on one VM). So a problem whose check fails is judged a
second time (for real, not from the judge's cache), scaled by the machine's speed
measured again just before, and a failure stands only when the second judgment shows
one too.

The margins are the calibrating machine's: every time measured here is divided by
this machine's slowdown against it (suite/speed.py, measured in the same run), and
the limits programs are judged under are scaled by it, so the checks hold on a faster,
slower or busier machine. Beyond the margins' factor (MARGIN) the suite's rungs are
no longer promised: `moved_rungs` names the slow programs whose break decade is
another on this machine, judged under the limits themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from codefrontier.judge import JudgePool, Sample
from codefrontier.problems.schema import Problem
from codefrontier.rewards import decade, rung_label
from codefrontier.suite.spec import Instance
from codefrontier.suite.speed import MachineSpeed, measure_speed

MARGIN = 3.0  # every margin, both ways: the factor of speed the rungs are promised within
EFFICIENT_SHARE_OF_LIMIT = 1 / MARGIN
SLOW_SHARE_OF_LIMIT = 1 / MARGIN  # a slow program's time on every test below its break decade
SLOW_LIMIT_FACTOR = MARGIN  # ... and the limits it needs on the first test of that decade
RAISED_SUFFIX = "#raised"


@dataclass
class SlowCheck:
    """One slow program on one problem, judged under SLOW_LIMIT_FACTOR times the limit
    (in the calibrating machine's seconds)."""

    complexity: str
    break_decade: int
    time_limit_s: float
    limit_factor: float  # the limit it must run out of, in limits: SLOW_LIMIT_FACTOR or 1
    verdicts: list[str]  # per test run, ascending input length
    input_lens: list[int]  # every test of the problem, ascending
    cpu_s: list[float]  # CPU seconds on this machine
    slowdown: float = 1.0  # this machine's against the calibrating one's (suite/speed.py)

    @property
    def break_bytes(self) -> int:
        return 10 ** self.break_decade

    def _runs(self):
        return zip(self.verdicts, self.cpu_s, self.input_lens[:len(self.verdicts)],
                   strict=True)

    @property
    def below(self) -> list[tuple[str, float]]:
        """(verdict, CPU s) of the tests run that are shorter than 10^d bytes."""
        return [(v, c) for v, c, n in self._runs() if n < self.break_bytes]

    @property
    def at_break(self) -> tuple[str, float] | None:
        """(verdict, CPU s) on the first test of 10^d bytes or more, if one was run."""
        return next(((v, c) for v, c, n in self._runs() if n >= self.break_bytes),
                    None)

    @property
    def solves(self) -> bool:
        """Whether every test of the problem is shorter than 10^d bytes (it solves it)."""
        return all(n < self.break_bytes for n in self.input_lens)

    @property
    def problems(self) -> list[str]:
        """What fails the margins, in the calibrating machine's seconds."""
        found = []
        name = f"{self.complexity} program (break decade {self.break_decade})"
        budget = self.time_limit_s * SLOW_SHARE_OF_LIMIT
        for verdict, cpu in self.below:
            if verdict != "AC" or cpu / self.slowdown > budget:
                found.append(f"{name} is {verdict} in {cpu / self.slowdown:.2f} s below 10^"
                             f"{self.break_decade} bytes (needs AC within {budget:.2f} s)")
                break
        at_break = self.at_break
        needed = self.limit_factor * self.time_limit_s
        if at_break is not None and not (
                at_break[0] in ("TLE", "MLE")
                or (at_break[0] == "AC" and at_break[1] / self.slowdown >= needed)):
            found.append(f"{name} finishes its first test of 10^{self.break_decade} bytes "
                         f"({at_break[0]}, {at_break[1] / self.slowdown:.2f} s), under "
                         f"{self.limit_factor:g}× the {self.time_limit_s:g} s limit")
        return found

    @property
    def decade_here(self) -> int | None:
        """The decade of the first test it fails on this machine under the limit itself
        (None: it passes every test, it solves the problem)."""
        for verdict, cpu, length in self._runs():
            if verdict != "AC" or cpu > self.time_limit_s:
                return decade(length)
        return None

    @property
    def decade_by_design(self) -> int | None:
        """Its break decade where the problem has a test that long, else None (it
        solves the problem)."""
        return None if self.solves else self.break_decade

    @property
    def summary(self) -> str:
        """`cubic 4: 0.03 s | ≥3×` (slowest below the break decade | first test at it)."""
        slowest = max((c for _, c in self.below), default=0.0) / self.slowdown
        at_break = self.at_break
        shown = ("solves" if at_break is None else f"≥{self.limit_factor:g}×"
                 if at_break[0] == "TLE" else at_break[0])
        return f"{self.complexity} {self.break_decade}: {slowest:.2f} s | {shown}"


@dataclass
class Calibration:
    problem_id: str
    scale: int
    time_limit_s: float
    efficient_outcome: str
    efficient_max_cpu_s: float  # on this machine
    slow: list[SlowCheck]
    buggy_outcome: str | None
    judged_twice: bool = False  # its first judgment failed the check, this one passed
    slowdown: float = 1.0  # this machine's against the calibrating one's (suite/speed.py)

    @property
    def efficient_calibrated_s(self) -> float:
        """The efficient reference's slowest test in the calibrating machine's seconds."""
        return self.efficient_max_cpu_s / self.slowdown

    @property
    def efficient_margin(self) -> float:
        """How many times the efficient reference's slowest test fits in the limit."""
        return self.time_limit_s / max(self.efficient_calibrated_s, 1e-3)

    @property
    def problems(self) -> list[str]:
        found = []
        if self.efficient_outcome != "correct":
            found.append(f"efficient reference is {self.efficient_outcome}")
        if self.efficient_calibrated_s > self.time_limit_s * EFFICIENT_SHARE_OF_LIMIT:
            found.append(f"efficient reference takes {self.efficient_calibrated_s:.2f} s of "
                         f"{self.time_limit_s:g} s (more than a third)")
        for check in self.slow:
            found += check.problems
        if self.buggy_outcome == "correct":
            found.append("buggy variant passes every test")
        return found


def with_raised_limit(problem: Problem, factor: float = SLOW_LIMIT_FACTOR,
                      suffix: str = RAISED_SUFFIX) -> Problem:
    """The problem with its time limit raised `factor` times."""
    return replace(problem, problem_id=problem.problem_id + suffix,
                   time_limit_s=problem.time_limit_s * factor)


def calibrate(pairs: list[tuple[Instance, Problem]], pool: JudgePool, margin: bool = True,
              speed: MachineSpeed | None = None,
              on_speed: Callable[[MachineSpeed], None] | None = None) -> list[Calibration]:
    """Judge each instance's efficient reference (every test), its slow programs (under
    the raised limit; with `margin=False`, under the limit itself) and its buggy variant
    on its problem; a problem that fails its check is judged again, and is reported
    with its second judgment when that one passes. Limits and times are scaled by this
    machine's `speed` (when not given, measured here before each judgment and passed
    to `on_speed`; speed.CALIBRATING_SPEED: as measured, unscaled)."""
    measured_here = speed is None

    def current_speed() -> MachineSpeed:
        if not measured_here:
            return speed
        measured = measure_speed(pool)
        if on_speed:
            on_speed(measured)
        return measured

    reports = _judged(pairs, pool, margin, current_speed().slowdown)
    failed = [index for index, report in enumerate(reports) if report.problems]
    if failed:
        # a shared machine's speed drifts over a run: the second judgment is scaled by
        # the reference measured just before it, not by the first one's
        again = _judged([pairs[index] for index in failed], pool, margin,
                        current_speed().slowdown, fresh=True)
        for index, report in zip(failed, again, strict=True):
            if not report.problems:
                reports[index] = replace(report, judged_twice=True)
    return reports


EFFICIENT_SUFFIX = "#efficient"


def _judged(pairs: list[tuple[Instance, Problem]], pool: JudgePool, margin: bool,
            slowdown: float, fresh: bool = False) -> list[Calibration]:
    """One judgment of every program of each pair, as Calibration reports: the slow
    programs under the limit they must run out of, on this machine's scale (at least the
    limit itself, so that `decade_here` sees every test they pass here), the efficient
    reference under the limit on this machine's scale (at least the limit itself)."""
    factor = SLOW_LIMIT_FACTOR if margin else 1.0
    problems: dict[str, Problem] = {}
    samples: list[Sample] = []
    for spec, problem in pairs:
        raised = with_raised_limit(problem, max(1.0, factor * slowdown))
        efficient = with_raised_limit(problem, max(1.0, slowdown), EFFICIENT_SUFFIX)
        problems |= {p.problem_id: p for p in (problem, raised, efficient)}
        samples.append(Sample(efficient.problem_id, 0, code=spec.efficient))
        samples += [Sample(raised.problem_id, 1 + number, code=source)
                    for number, source in enumerate(spec.slow.values())]
        if spec.buggy is not None:
            samples.append(Sample(problem.problem_id, -1, code=spec.buggy))
    # the long runs first, so that the pool's workers finish together
    samples.sort(key=lambda s: not s.problem_id.endswith(RAISED_SUFFIX))
    efficient_runs = pool.judge(problems, [s for s in samples if s.sample_id == 0],
                                all_tests=True, progress=True, fresh=fresh)
    other_runs = pool.judge(problems, [s for s in samples if s.sample_id != 0],
                            progress=True, fresh=fresh)
    by_key = {(r.problem_id, r.sample_id): r for r in efficient_runs + other_runs}
    reports = []
    for spec, problem in pairs:
        pid = problem.problem_id
        efficient = by_key[(pid + EFFICIENT_SUFFIX, 0)]
        slow = []
        for number, program in enumerate(spec.family.slow):
            run = by_key[(pid + RAISED_SUFFIX, 1 + number)]
            slow.append(SlowCheck(program.complexity, program.break_decade,
                                  problem.time_limit_s, factor, run.verdicts,
                                  run.input_lens, run.cpu_s, slowdown))
        buggy = by_key.get((pid, -1))
        reports.append(Calibration(
            problem_id=pid, scale=spec.scale, time_limit_s=problem.time_limit_s,
            efficient_outcome=efficient.outcome, efficient_max_cpu_s=max(efficient.cpu_s),
            slow=slow, buggy_outcome=buggy.outcome if buggy else None, slowdown=slowdown))
    return reports


def rungs(low: int, high: int | None) -> str:
    """R_low to R_high (None: R_inf) as `R_3`, `R_3..R_4` or `R_3..R_inf`."""
    top = math.inf if high is None else high
    return rung_label(low) if top == low else f"{rung_label(low)}..{rung_label(top)}"


def moved_rungs(reports: list[Calibration]) -> list[str]:
    """The slow programs whose break decade is another on this machine, judged under the
    limits themselves, and the rungs R_k that accept or reject them here against the
    suite's design: empty within the margins' envelope."""
    moved = []
    for report in reports:
        for check in report.slow:
            designed, here = check.decade_by_design, check.decade_here
            if designed == here:
                continue
            shown = {None: "solves the problem"} | {d: f"breaks at 10^{d} bytes"
                                                     for d in (designed, here)}
            if here is not None and (designed is None or here < designed):
                moved_to, verb = rungs(here + 1, designed), "reject"
            else:
                moved_to, verb = rungs(designed + 1, here), "accept"
            change = f"{moved_to} {verb if '..' in moved_to else verb + 's'} it here"
            moved.append(f"{report.problem_id}: the {check.complexity} program {shown[here]} "
                         f"here, by design it {shown[designed]}: {change}")
    return moved


def calibration_table(reports: list[Calibration]) -> str:
    """The reports as a fixed-width table, one line per problem, and a summary line;
    times in the calibrating machine's seconds."""
    lines = [f"{'problem':<34}{'scale':>6}{'limit s':>8}{'eff. cpu s':>11}{'limit/eff':>10}"
             f"  slow (break decade: slowest below | first test at it)  ok"]
    for report in reports:
        lines.append(
            f"{report.problem_id:<34}{report.scale:>6}{report.time_limit_s:>8g}"
            f"{report.efficient_calibrated_s:>11.3f}{report.efficient_margin:>9.1f}×  "
            f"{'; '.join(check.summary for check in report.slow) or '-'}  "
            f"{'; '.join(report.problems) or ('yes (2nd)' if report.judged_twice else 'yes')}")
    calibrated = sum(not report.problems for report in reports)
    twice = sum(report.judged_twice for report in reports)
    lines.append(f"{calibrated} of {len(reports)} problems calibrated"
                 + (f" ({twice} on their second judgment)" if twice else ""))
    return "\n".join(lines)


def calibration_pairs(split: str | None, count: int | None = None,
                      difficulties: Collection[str] | None = None,
                      families: Collection[str] | None = None, knob_pool: int | None = None,
                      disjoint_from: Collection[str] = ()) -> list[tuple[Instance, Problem]]:
    """The instances to calibrate with their problems: without a split, the first train
    instance of each family at the largest scale (tests in every decade); with one,
    every instance of that build, as `problems build` makes it (tests drawn again where
    `disjoint_from`'s problems have their input)."""
    from codefrontier.problems.schema import test_inputs
    from codefrontier.suite.build import (
        DECADES,
        build_bundled,
        instances,
        load_families,
        to_problem,
    )

    if split is None:
        chosen = [f for f in load_families() if not families or f.slug in families]
        probes = [replace(family.instance("train", 0), scale=max(DECADES)) for family in chosen]
        return [(instance, to_problem(instance)) for instance in probes]
    selection = (split, count, difficulties, families, knob_pool)
    return list(zip(instances(*selection),
                    build_bundled(split, count, test_inputs(list(disjoint_from)),
                                  *selection[2:]), strict=True))
