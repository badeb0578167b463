"""The weaker sandbox levels, for machines without root or without namespaces.

Every level must still give the right verdicts, leave no process behind and
keep the judge alive. The unprivileged tests start a real worker as `nobody`,
the situation on a Slurm node.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import SUM_OK, processes_with_uid, sandbox_processes, stdin_problem

from codefrontier.judge import JudgePool, Sample, wire

pytestmark = pytest.mark.slow

DAEMON = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
          "        time.sleep(100)\n    os._exit(0)\nos.wait()\n" + SUM_OK)
PROGRAMS = {
    "ok": (SUM_OK, ["AC"] * 4),
    "loop": ("while True: pass", ["TLE"]),
    "memory": ("x = bytearray(10 ** 10)", ["MLE"]),
    "output": ("import sys\nwhile True: sys.stdout.write('x' * 65536)", ["OLE"]),
    "daemon": (DAEMON, ["AC"] * 4),
}


@pytest.mark.parametrize("level", ["userns", "rlimits"])
def test_weaker_levels_still_judge_correctly(level):
    with JudgePool(workers=1, max_isolation=level) as pool:
        assert pool.isolation.level == level
        problem = stdin_problem()
        samples = [Sample("sum", i, code=code) for i, (code, _) in enumerate(PROGRAMS.values())]
        results = pool.judge({"sum": problem}, samples)
        assert [r.verdicts for r in results] == [v for _, v in PROGRAMS.values()]
        assert {r.isolation for r in results} == {level}
        assert sandbox_processes(pool) == []


def test_a_program_that_kills_its_sample_process_gets_re_and_judging_goes_on():
    # Under userns, programs share the caller's uid, so they can kill the sample process.
    killer = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(1)"
    with JudgePool(workers=1, max_isolation="userns") as pool:
        workers = pool.worker_pids
        results = pool.judge({"sum": stdin_problem()},
                             [Sample("sum", 0, code=killer), Sample("sum", 1, code=SUM_OK)])
        assert [r.verdicts for r in results] == [["RE"], ["AC"] * 4]
        assert pool.worker_pids == workers


# ----------------------------------------------------------- an unprivileged caller

NOBODY = 65534


def _nobody_processes() -> list[int]:
    return processes_with_uid(lambda uid: uid == NOBODY)


@pytest.fixture(scope="module")
def package_copy():
    """The package where `nobody` can read it (the checkout may sit under /root)."""
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs root, setpriv and /usr/bin/python3 to start a worker as nobody")
    folder = tempfile.mkdtemp(prefix="codefrontier-nobody-")
    os.chmod(folder, 0o755)
    shutil.copytree(Path(__file__).resolve().parents[1] / "codefrontier",
                    Path(folder) / "codefrontier")
    subprocess.run(["chmod", "-R", "a+rX", folder], check=True)
    yield folder
    shutil.rmtree(folder)


def _unprivileged_worker(package_copy: str, level: str) -> subprocess.Popen:
    command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
               "/usr/bin/python3", "-m", "codefrontier.judge.worker", "--max-isolation", level]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/",
                            env={"PYTHONPATH": package_copy, "PATH": "/usr/bin:/bin"})


def _judge(worker: subprocess.Popen, code: str) -> list[str]:
    problem = stdin_problem()
    tests = [[t.input, t.output] for t in problem.tests_by_input_length()]
    wire.send(worker.stdin.fileno(), {
        "op": "judge", "code": code, "kind": "stdin", "func_name": "", "time_limit_s": 1.0,
        "memory_limit_mb": 256, "output_limit_mb": 16.0, "all_tests": False,
        "tests_key": "sum", "tests": tests})
    reply, _ = wire.receive(worker.stdout.fileno())
    return [run["verdict"] for run in reply["runs"]]


@pytest.mark.parametrize("level", ["userns", "rlimits"])
def test_an_unprivileged_worker(package_copy, level):
    worker = _unprivileged_worker(package_copy, level)
    try:
        ready, _ = wire.receive(worker.stdout.fileno())
        assert ready["isolation"]["level"] == level
        assert ready["isolation"]["uid_drop"] is False
        before = set(_nobody_processes())
        for code, verdicts in PROGRAMS.values():
            assert _judge(worker, code) == verdicts
        assert set(_nobody_processes()) - before == set()  # the daemon is gone
    finally:
        worker.kill()
        worker.wait()
