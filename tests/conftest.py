import atexit
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from codefrontier.judge import JudgePool
from codefrontier.judge.worker import SANDBOX_UID_BASE
from codefrontier.problems.schema import Problem, Test

# `make test` runs the tests on two pytest-xdist workers (`-n 2 --dist loadgroup`); a
# group's tests run on one worker, one after another. A file is a group of its own (its
# module fixtures are made once), except where files share something that must not be
# made twice or used at once: the session's smoke run (every file with a test that
# reads it), the private Slurm cluster (a GRPO job there is paced against a run beside
# it), and the `nobody` user that the terminal and isolation tests look for processes of.
# (xdist 3.8's own loadgroup cannot read `xdist_group` marks under pytest 9, which
# renamed the node id it appends the group to; the scheduler below groups by file name.)
SMOKE_GROUP = "smoke_run"
SHARED_FILES = {
    SMOKE_GROUP: ("test_browser", "test_docs", "test_inspect_export", "test_kills",
                  "test_training_log", "test_workflow"),
    "slurm": ("test_slurm", "test_time_limits"),
    "nobody": ("test_isolation_levels", "test_terminal"),
}
GROUP_OF_FILE = {name: group for group, names in SHARED_FILES.items() for name in names}
# the groups that take longest, first (4 to 15 minutes each), so that no worker starts one
# when the other is nearly done; the rest in file order
LONGEST_FIRST = ("slurm", SMOKE_GROUP, "test_vllm", "test_suite", "test_training",
                 "test_kernels")


def test_group(nodeid: str) -> str:
    """The group of a test, from its file's name."""
    stem = Path(nodeid.split("::", 1)[0]).stem
    return GROUP_OF_FILE.get(stem, stem)


def pytest_collection_modifyitems(config, items):
    misplaced = sorted({item.path.stem for item in items
                        if SMOKE_GROUP in getattr(item, "fixturenames", ())
                        and GROUP_OF_FILE.get(item.path.stem) != SMOKE_GROUP})
    if misplaced:
        raise pytest.UsageError(f"{misplaced} read the smoke run: add them to "
                                f"SHARED_FILES[{SMOKE_GROUP!r}] in tests/conftest.py")
    rank = {group: index for index, group in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(test_group(item.nodeid), len(rank)))  # stable


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # LONGEST_FIRST's order, not the test counts'

    class FileGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return test_group(nodeid)

    return FileGroups(config, log)


@pytest.fixture(autouse=True)
def environment_restored():
    """Each test leaves os.environ as it found it: training in this process (TRL's vLLM
    colocate mode) sets MASTER_PORT, RANK and WORLD_SIZE, which every later subprocess of
    this worker would inherit, and two such training processes at once (one per worker)
    would listen on the same port."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)


def stdin_problem(problem_id="sum", tests=None, time_limit_s=1.0, memory_limit_mb=256):
    tests = tests or tuple(Test(f"{i} {i + 1}\n", str(2 * i + 1)) for i in range(0, 40, 10))
    return Problem(problem_id, "Sum", "Print a + b.", "easy", "test", "stdin", tests=tuple(tests),
                   time_limit_s=time_limit_s, memory_limit_mb=memory_limit_mb)


def call_problem(problem_id="add", tests=None):
    tests = tests or (Test("1\n2", "3"), Test("[1, 2]\n[3]", "[1, 2, 3]"))
    return Problem(problem_id, "Add", "Return a + b.", "easy", "test", "call", tests=tuple(tests),
                   func_name="add", time_limit_s=1.0)


# Content hashes are cached per user (~/.cache/codefrontier); tests keep their own,
# removed when the session ends.
if "CODEFRONTIER_CACHE" not in os.environ:
    os.environ["CODEFRONTIER_CACHE"] = tempfile.mkdtemp(prefix="codefrontier-cache-")
    atexit.register(shutil.rmtree, os.environ["CODEFRONTIER_CACHE"], ignore_errors=True)

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "smoke.yaml"
# the Hub on, as a user's jobs have it (nothing of the smoke run reads it; the cluster
# grids' dry runs would fail with it off, their models not being in the cache)
ENV = {**{k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"},
       "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}


def snakemake(workdir, *args, config=SMOKE, timeout=1800):
    """Snakemake on `workdir` with one config file, or several (merged, in order)."""
    configs = config if isinstance(config, list) else [config]
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
               "-d", str(workdir), "-c2", *map(str, args), "--configfile", *map(str, configs)]
    return subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=timeout)


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """The smoke config's whole workflow, run once for the session: the tests that read a
    finished run share it (test_workflow, test_docs), and put back what they change."""
    workdir = tmp_path_factory.mktemp("workflow")
    done = snakemake(workdir)
    assert done.returncode == 0, done.stderr[-5000:]
    return workdir


def require_module(module: str, install: str) -> None:
    if importlib.util.find_spec(module) is None:
        missing(module, install)


def require_program(program: str, install: str) -> None:
    if shutil.which(program) is None:
        missing(program, install)


def missing(what: str, install: str) -> None:
    """Skip the test, unless CODEFRONTIER_REQUIRE_INSPECT=1 (CI: make test installs the
    inspect, browser and tracking extras, .ci/debian-packages.sh Chromium)."""
    if os.environ.get("CODEFRONTIER_REQUIRE_INSPECT") == "1":
        raise RuntimeError(f"{what} is required here (CODEFRONTIER_REQUIRE_INSPECT=1): {install}")
    pytest.skip(f"{what} is not installed: {install}")


@pytest.fixture(scope="session")
def looked(smoke_run, tmp_path_factory):
    """The smoke run's results with a known tool_use checkpoint added (tests/inspect_run.py)."""
    from inspect_run import looked_run

    return looked_run(smoke_run / "results", tmp_path_factory.mktemp("looked"))


@pytest.fixture(scope="session")
def inspect_logs(looked):
    """Every checkpoint of `looked` as an Inspect log, as `export inspect` writes them."""
    require_module("inspect_ai", "pip install -e '.[inspect]'")
    from codefrontier.analysis.inspect_export import write_inspect_logs

    out = looked.root / "inspect"
    return out, write_inspect_logs(looked.results, out)


def dry_run_jobs(output: str) -> list[dict]:
    """The jobs of a dry run's output (`snakemake -n -p`): rule, wildcards, resources and
    shell command of each."""
    jobs = []
    for block in re.split(r"\n(?=rule \w+:\n)", output):
        if not block.startswith("rule "):
            continue
        job = {"rule": block.split(":", 1)[0].removeprefix("rule ")}
        for key in ("wildcards", "resources"):
            found = re.search(rf"^    {key}: (.*)$", block, re.M)
            job[key] = dict(item.split("=", 1) for item in found.group(1).split(", ")) \
                if found else {}
        job["shell"] = block
        jobs.append(job)
    return jobs


SUM_OK = "a, b = map(int, input().split())\nprint(a + b)\n"


def assert_fails_offline(code: str, tmp_path) -> None:
    """Running `code` with the Hub unreachable fails with DatasetUnavailable naming --data-dir."""
    import subprocess
    import sys

    env = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode != 0
    assert "DatasetUnavailable" in done.stderr and "--data-dir" in done.stderr


@pytest.fixture(scope="module")
def listener():
    """A loopback server that a sandboxed program must never reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture(scope="session")
def judge():
    with JudgePool(workers=2) as pool:
        yield pool


def processes_with_uid(accept) -> list[int]:
    """Host pids of the processes whose uid `accept` takes."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if accept(entry.stat().st_uid):
                    found.append(int(entry.name))
            except OSError:
                continue  # the process ended while we looked
    return found


def sandbox_processes(pool) -> list[int]:
    """Host pids running under the sandbox uids of this pool's workers (other judge pools
    may run on the machine: a workflow, a parallel test)."""
    uids = {SANDBOX_UID_BASE + pid for pid in pool.worker_pids}
    return processes_with_uid(lambda uid: uid in uids)
