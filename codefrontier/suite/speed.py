"""This machine's speed at the suite's kind of program, against the machine that
calibrated the suite.

The suite's rungs are a property of the suite on any machine within a factor of the
calibrating machine's speed (the calibration's margins, docs/design.md). To tell
where a machine stands, the judge runs one fixed pure-Python program (a double loop
over a list, what the slow programs are made of) a few times, in CPU time, beside
whatever else the machine is doing; its median over the time recorded on the
calibrating machine is this machine's slowdown. Calibration divides the times it
measures here by it, so that its margins are checked in the calibrating machine's
seconds on a faster or a slower machine, or a loaded one.
"""

from __future__ import annotations

import bisect
import statistics
from dataclasses import dataclass

from codefrontier.judge import JudgePool, Sample
from codefrontier.problems.schema import Problem, Test

REFERENCE_SIZE = 3000
REFERENCE_PROGRAM = """\
import sys

n = int(sys.stdin.readline())
values = [(i * 7919) % 1009 for i in range(n)]
below = 0
for i in range(n):
    value = values[i]
    for j in range(i):
        if values[j] < value:
            below += 1
print(below)
"""
# The reference program's CPU time on the machine that calibrated the suite: the median
# of 11 medians of REFERENCE_RUNS (judged fresh, 2 workers), taken at moments spread over
# a session of 2026-12-07 on that VM, nothing else running but for two (beside the end
# of a test run); they ranged from 0.35 to 0.58 s (the VM's speed moves with its host's
# load; a run's own measurement follows it). `codefrontier problems calibrate` prints
# the figure of the machine it runs on.
CALIBRATING_MACHINE = "AMD EPYC (Zen 4, AVX2 + AVX-512), 2-core KVM VM"
CALIBRATING_CPU_S = 0.42
REFERENCE_RUNS = 9
REFERENCE_ID = "speed-reference"


def reference_answer(n: int = REFERENCE_SIZE) -> str:
    """What the reference program prints: pairs j < i with values[j] < values[i]."""
    seen: list[int] = []
    below = 0
    for value in ((i * 7919) % 1009 for i in range(n)):
        below += bisect.bisect_left(seen, value)
        bisect.insort(seen, value)
    return str(below)


def reference_problem() -> Problem:
    return Problem(REFERENCE_ID, "Speed reference", "Count ordered pairs.", "easy", "test",
                   "stdin", tests=(Test(f"{REFERENCE_SIZE}\n", reference_answer()),),
                   time_limit_s=30.0)


@dataclass(frozen=True)
class MachineSpeed:
    """The reference program's CPU times on one machine."""

    cpu_s: tuple[float, ...]

    @property
    def median_cpu_s(self) -> float:
        return statistics.median(self.cpu_s)

    @property
    def slowdown(self) -> float:
        """This machine's time over the calibrating machine's (2: twice as slow)."""
        return self.median_cpu_s / CALIBRATING_CPU_S

    def within(self, factor: float) -> bool:
        return 1 / factor <= self.slowdown <= factor

    def describe(self, factor: float) -> str:
        ratio = self.slowdown
        pace = (f"{ratio:.2f}× slower than" if ratio >= 1 else f"{1 / ratio:.2f}× faster than")
        where = (f"within the {factor:g}× envelope the suite's rungs hold in"
                 if self.within(factor) else
                 f"OUTSIDE the {factor:g}× envelope the suite's rungs hold in, by "
                 f"{max(ratio, 1 / ratio) / factor:.2f}×: the rungs below are this "
                 "machine's, not the suite's")
        return (f"machine speed: the reference program takes {self.median_cpu_s:.3f} s CPU "
                f"here (median of {len(self.cpu_s)}), {CALIBRATING_CPU_S:.3f} s on the "
                f"calibrating machine ({CALIBRATING_MACHINE}): {pace} it, {where}")


CALIBRATING_SPEED = MachineSpeed((CALIBRATING_CPU_S,))


def measure_speed(pool: JudgePool, runs: int = REFERENCE_RUNS) -> MachineSpeed:
    """Judge the reference program `runs` times (each run for real, none from the judge's
    cache) and return its CPU times."""
    problem = reference_problem()
    results = pool.judge({problem.problem_id: problem},
                         [Sample(problem.problem_id, index, code=REFERENCE_PROGRAM)
                          for index in range(runs)], fresh=True)
    wrong = [r.outcome for r in results if r.outcome != "correct"]
    if wrong:
        raise RuntimeError(f"the speed reference program was judged {wrong[0]}: the judge "
                           "does not run programs as it should")
    return MachineSpeed(tuple(r.cpu_s[0] for r in results))
