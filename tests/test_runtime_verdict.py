"""How a run's ending maps to a verdict, before any output is compared."""

import signal

import pytest

from codefrontier.judge.child import EXIT_MEMORY, EXIT_UNSERIALIZABLE
from codefrontier.judge.runs import TestRun, runtime_verdict

CAP = 1000


def run(exit_code=0, cpu_s=0.1, wall_timeout=False, output_size=10):
    return TestRun(exit_code=exit_code, cpu_s=cpu_s, wall_s=cpu_s, peak_mb=10.0,
                   wall_timeout=wall_timeout, output=b"", output_size=output_size)


@pytest.mark.parametrize(
    ("ended", "verdict"),
    [
        (run(), None),
        (run(cpu_s=1.01), "TLE"),
        (run(exit_code=-signal.SIGXCPU, cpu_s=0.998), "TLE"),  # rlimit clock a hair ahead
        (run(exit_code=-signal.SIGKILL, cpu_s=2.0), "TLE"),
        (run(exit_code=-signal.SIGKILL, cpu_s=0.2), "RE"),
        (run(wall_timeout=True, cpu_s=0.0, exit_code=-signal.SIGKILL), "TLE"),
        (run(output_size=CAP), "OLE"),
        (run(exit_code=-signal.SIGXFSZ, output_size=10), "OLE"),
        (run(exit_code=EXIT_MEMORY), "MLE"),
        (run(exit_code=EXIT_UNSERIALIZABLE), "WA"),
        (run(exit_code=1), "RE"),
        (run(exit_code=-signal.SIGSEGV), "RE"),
        (run(exit_code=1, cpu_s=1.5), "TLE"),  # over time first
    ],
)
def test_runtime_verdict(ended, verdict):
    assert runtime_verdict(ended, time_limit_s=1.0, output_limit_bytes=CAP) == verdict
