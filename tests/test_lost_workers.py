"""A judge worker that dies or stays silent is an event of the machine, never a verdict.

Real workers are killed (SIGKILL) or stopped (SIGSTOP) while they judge a program
that needs 1.5 CPU seconds; the sample is judged again by a fresh worker and gets
the program's own verdict, and the loss is counted. A worker lost on every attempt
ends in JudgeUnavailable, not in a verdict.
"""

import os
import signal
import threading

import pytest
from conftest import stdin_problem

from codefrontier.judge import JudgePool, Sample
from codefrontier.judge.pool import LOST_WORKER_ATTEMPTS, JudgeUnavailable
from codefrontier.problems.schema import Test

pytestmark = pytest.mark.slow

# exactly 1.5 s of CPU on any machine, then the answer
SPIN_THEN_ECHO = ("import time\nwhile time.process_time() < 1.5:\n    pass\n"
                  "print(input())\n")
PROBLEM = stdin_problem("echo", tests=(Test("7\n", "7"),), time_limit_s=10.0)


def signal_worker_soon(pool: JudgePool, signum: int) -> threading.Timer:
    """Send `signum` to the pool's only worker half a second from now (mid-sample)."""
    [pid] = pool.worker_pids
    timer = threading.Timer(0.5, os.kill, (pid, signum))
    timer.start()
    return timer


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGSTOP], ids=["dies", "stalls"])
def test_a_lost_worker_is_replaced_and_the_sample_judged_again(signum):
    # a stopped worker is silent forever; patience 0.1 takes it for lost after ~5 s
    with JudgePool(workers=1, patience=0.1) as pool:
        [first_pid] = pool.worker_pids
        signal_worker_soon(pool, signum)
        [result] = pool.judge({"echo": PROBLEM}, [Sample("echo", 0, code=SPIN_THEN_ECHO)])
        assert (result.outcome, result.verdicts, result.error) == ("correct", ["AC"], "")
        assert pool.worker_losses == 1
        assert pool.losses_by_cause == {"died" if signum == signal.SIGKILL else "silent": 1}
        assert pool.worker_pids != [first_pid]


def test_a_run_whose_worker_dies_is_made_again():
    with JudgePool(workers=1) as pool:
        signal_worker_soon(pool, signal.SIGKILL)
        run = pool.execute(SPIN_THEN_ECHO, stdin="abc\n", time_limit_s=10.0,
                           memory_limit_mb=512, output_chars=2000)
        assert (run.status, run.stdout, run.exit_code) == ("ok", "abc\n", 0)
        assert pool.worker_losses == 1


def test_workers_lost_on_every_attempt_give_no_verdict():
    # 1.5 CPU seconds never fit in 0.05 s, nor in the doubled times of the retries
    with JudgePool(workers=1, patience=0.001) as pool:
        with pytest.raises(JudgeUnavailable, match="no verdict"):
            pool.judge({"echo": PROBLEM}, [Sample("echo", 0, code=SPIN_THEN_ECHO)])
        assert pool.worker_losses == LOST_WORKER_ATTEMPTS
        # the pool still judges once its workers have the time
        pool.patience = 1.0
        [result] = pool.judge({"echo": PROBLEM}, [Sample("echo", 0, code="print(input())")])
        assert result.outcome == "correct"
