"""When a run over the time limit is timed again.

CPU time moves from run to run on a shared or virtual machine, idle or not: on the
2-core VM one fixed program measured 0.111–0.197 s over 30 runs with nothing else
running (`python benchmarks/cpu_time_noise.py`). A program whose time lies near the
limit would then pass or fail a test by chance, and one flipped reward sends a GRPO run
down another path. So the verdict follows the program's fastest time, the one the
machine disturbed least:

* a run is ended at KILL_FACTOR × the limit, not at the limit, so a run that ends over
  the limit but short of that is known to be near it;
* such a run is timed again, up to TIMING_RUNS runs of the test in all, and the test
  passes when any of them ends within the limit (judged on that run's output);
* a run ended at KILL_FACTOR × the limit, or by the wall-clock backstop, is a TLE at
  once: no plausible noise brings it under the limit, and running it again would cost
  as much again.

A slow program (thousands of limits away) costs KILL_FACTOR × the limit per TLE
instead of the limit; a near one up to TIMING_RUNS × that.
"""

from __future__ import annotations

KILL_FACTOR = 1.5
TIMING_RUNS = 3


def kill_after_s(time_limit_s: float) -> float:
    """CPU seconds at which the sandbox ends a test's run."""
    return KILL_FACTOR * time_limit_s


def near_the_limit(cpu_s: float, time_limit_s: float, wall_timeout: bool) -> bool:
    """Whether a run that ended over the limit may be under it when timed again."""
    return not wall_timeout and time_limit_s < cpu_s < kill_after_s(time_limit_s)


def budget_per_test_s(time_limit_s: float) -> float:
    """CPU seconds one test can take at most, every run of it included."""
    return TIMING_RUNS * kill_after_s(time_limit_s)
