"""A run that ends over the time limit, but near it, is timed again (judge/timing.py)."""

import os
import signal
import threading

import pytest
from conftest import stdin_problem

from codefrontier.judge import JudgePool, Sample, wire
from codefrontier.judge.runs import TestRun, judge_request
from codefrontier.judge.timing import TIMING_RUNS, kill_after_s, near_the_limit
from codefrontier.problems.schema import Test

LIMIT = 0.4


@pytest.mark.parametrize(("cpu_s", "wall_timeout", "near"), [
    (0.39, False, False),       # within the limit: nothing to time again
    (0.41, False, True),
    (0.59, False, True),
    (kill_after_s(LIMIT), False, False),  # ended at the kill: a TLE at once
    (0.45, True, False),        # the wall-clock backstop: it sat idle, CPU is not the question
])
def test_near_the_limit(cpu_s, wall_timeout, near):
    assert near_the_limit(cpu_s, LIMIT, wall_timeout) == near


def _judged_by_scripted_sandbox(cpu_seconds: list[list[float]]) -> tuple[dict, list[str]]:
    """judge_request against a sandbox that reports the given CPU times, run by run,
    for each test (each run prints the right answer), and the replies the judge sent."""
    judge_to_sandbox, sandbox_in = os.pipe()
    sandbox_out, judge_from_sandbox = os.pipe()
    tests = [[f"{index}\n", str(index)] for index in range(len(cpu_seconds))]
    replies = []

    def sandbox():
        wire.receive(judge_to_sandbox)  # the sample
        for index, runs in enumerate(cpu_seconds):
            for cpu_s in runs:
                killed = cpu_s >= kill_after_s(LIMIT)
                run = TestRun(exit_code=-signal.SIGKILL if killed else 0, cpu_s=cpu_s,
                              wall_s=cpu_s, peak_mb=10.0, wall_timeout=False,
                              output=str(index).encode(), output_size=len(str(index)))
                header, payload = run.to_wire()
                wire.send(judge_from_sandbox, {"op": "test", "seq": 1, "index": index, **header},
                          payload)
                replies.append(wire.receive(judge_to_sandbox)[0]["op"])
        wire.send(judge_from_sandbox, {"op": "sample_end", "seq": 1, "status": 0})

    thread = threading.Thread(target=sandbox)
    thread.start()
    request = {"tests": tests, "code": "", "kind": "stdin", "time_limit_s": LIMIT,
               "memory_limit_mb": 64, "output_limit_mb": 1, "tests_key": "k", "all_tests": False}
    reply = judge_request(request, 1, sandbox_in, sandbox_out)
    thread.join()
    for fd in (judge_to_sandbox, sandbox_in, sandbox_out, judge_from_sandbox):
        os.close(fd)
    return reply, replies


def test_a_run_just_over_the_limit_passes_when_timed_again_within_it():
    reply, replies = _judged_by_scripted_sandbox([[0.5, 0.3], [0.1]])
    assert replies == ["again", "next", "stop"]
    runs = reply["runs"]
    assert [r["verdict"] for r in runs] == ["AC", "AC"]
    assert [r["timing_runs"] for r in runs] == [2, 1]
    assert runs[0]["cpu_s"] == 0.3  # the run that decided


def test_a_test_over_the_limit_in_every_run_is_a_tle():
    reply, replies = _judged_by_scripted_sandbox([[0.1], [0.45] * TIMING_RUNS])
    assert replies == ["next"] + ["again"] * (TIMING_RUNS - 1) + ["stop"]
    assert [r["verdict"] for r in reply["runs"]] == ["AC", "TLE"]
    assert [r["timing_runs"] for r in reply["runs"]] == [1, TIMING_RUNS]


def test_a_run_ended_at_the_kill_is_not_timed_again():
    reply, replies = _judged_by_scripted_sandbox([[kill_after_s(LIMIT) + 0.01]])
    assert replies == ["stop"]
    assert [r["timing_runs"] for r in reply["runs"]] == [1]


SPIN_TO = "import time\nend = {seconds}\nwhile time.process_time() < end: pass\nprint(input())\n"


def test_the_sandbox_times_a_run_near_the_limit_again_and_ends_a_slow_one_at_the_kill():
    """Real runs: a program that always needs 1.2 limits of CPU is run TIMING_RUNS times
    and each run is allowed to finish; one that never ends is ended once, at the kill."""
    problem = stdin_problem("spin", tests=(Test("1\n", "1"),), time_limit_s=LIMIT)
    with JudgePool(workers=1) as judge:
        near = judge.judge_one(problem, Sample("spin", 0, code=SPIN_TO.format(seconds=1.2 * LIMIT)))
        endless = judge.judge_one(problem, Sample("spin", 1, code="while True: pass"))
    assert (near.verdicts, near.timing_runs, near.tle_cause) == (["TLE"], [TIMING_RUNS], "cpu")
    assert LIMIT < near.cpu_s[0] < kill_after_s(LIMIT)
    assert (endless.verdicts, endless.timing_runs) == (["TLE"], [1])
    assert endless.cpu_s[0] >= kill_after_s(LIMIT)

