"""The Terminal: a persistent workspace whose every command runs in a fresh bwrap sandbox.

Real processes throughout. Each hostile command is checked for its effect and
that the host is untouched: no process left under the terminal's uid, no
marker file on the host, the loopback listener saw nothing, and the terminal
still runs `echo ok` (or, past its quota, refuses cleanly).
"""

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import processes_with_uid

from codefrontier.sandbox import bwrap as bwrap_module
from codefrontier.sandbox.terminal import CommandLimits, Terminal, WorkspaceExceeded
from codefrontier.sandbox.textcut import cut_marker

REPO = Path(__file__).resolve().parents[1]
MARK = f"cf-terminal-{secrets.token_hex(4)}"
AS_ROOT = os.geteuid() == 0
WRITABLE_ON_HOST = ["/tmp", "/var/tmp", "/dev/shm"]
OTHER_PLACES = [str(REPO), "/root", "/etc", "/usr", "/", "/usr/local/bin"]


# generous limits of this test's own; a test that is about a limit sets it
LIMITS = {"cpu_s": 10.0, "wall_s": 20.0, "workspace_mb": 64, "output_chars": 2000}


def open_terminal(files: dict[str, str] | None = None, **limits) -> Terminal:
    try:
        return Terminal(files or {}, CommandLimits(**{**LIMITS, **limits}))
    except RuntimeError as error:
        if not AS_ROOT and os.environ.get("CODEFRONTIER_REQUIRE_SLURM") != "1":
            pytest.skip(f"bubblewrap cannot sandbox for this unprivileged user: {error}")
        raise


@pytest.fixture
def terminal():
    with open_terminal({"main.py": "print(6 * 7)\n", "data/input.txt": "1 2 3\n"}) as opened:
        yield opened


def terminal_processes(terminal: Terminal) -> list[int]:
    """Host pids running under the terminal's sandbox uid (root only: else the caller's)."""
    if terminal.uid is None:
        return []
    return processes_with_uid(lambda uid: uid == terminal.uid)


def assert_host_untouched(terminal: Terminal, listener: socket.socket | None = None) -> None:
    assert terminal_processes(terminal) == []
    for folder in WRITABLE_ON_HOST + OTHER_PLACES:
        leftovers = [p.name for p in Path(folder).glob(f"{MARK}*")] if os.path.isdir(folder) else []
        assert leftovers == [], f"{folder} has {leftovers}"
    if listener is not None:
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert terminal.run("echo ok").output == "ok\n"


def lock_is_free(path: str) -> bool:
    """Whether no process holds a flock on the file: a daemon that took it and lives on
    holds it (the lock goes with the last open descriptor, at its holder's death)."""
    import fcntl

    with open(path, "rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


# ---------------------------------------------------------------- the basics


def test_files_persist_between_commands_and_cwd_is_the_workspace(terminal):
    assert terminal.run("pwd").output == "/workspace\n"
    assert terminal.run("cat data/input.txt").output == "1 2 3\n"
    result = terminal.run("echo made > new.txt && mkdir -p deep/er && echo x > deep/er/f")
    assert (result.exit_code, result.timed_out, result.workspace_exceeded) == (0, False, False)
    assert terminal.run("cat new.txt deep/er/f").output == "made\nx\n"
    assert terminal.read("new.txt") == "made\n"
    assert terminal.files() == ["data/input.txt", "deep/er/f", "main.py", "new.txt"]


def test_python_on_path_is_this_interpreter(terminal):
    assert terminal.run("python main.py").output == "42\n"
    # a virtualenv is shown at a fixed path: nothing inside names the checkout
    prefix = bwrap_module.SANDBOX_VENV if sys.prefix != sys.base_prefix else sys.prefix
    for name in ("python", "python3"):
        result = terminal.run(f"{name} -c 'import sys; print(sys.prefix, sys.base_prefix, "
                              f"sys.version_info[:2])'")
        assert result.output == f"{prefix} {sys.base_prefix} {sys.version_info[:2]}\n"
    assert str(REPO) not in terminal.run("echo $PATH; command -v python").output


def test_output_interleaves_stdout_and_stderr_and_reports_the_exit(terminal):
    result = terminal.run("echo one; echo two >&2; echo three; exit 7")
    assert (result.output, result.exit_code) == ("one\ntwo\nthree\n", 7)
    assert result.cpu_s >= 0 and result.wall_s > 0


def test_cpu_time_is_measured(terminal):
    result = terminal.run("python -c 'sum(range(10 ** 7))'")
    assert result.exit_code == 0 and result.cpu_s > 0.05


def test_the_workspace_paths_given_must_stay_inside():
    for bad in ("/etc/passwd", "../escape.txt", "a/../../b", ""):
        with pytest.raises(ValueError):
            Terminal({bad: "x"}, CommandLimits(**LIMITS))


def test_the_isolation_is_described(terminal):
    assert terminal.isolation.startswith("bwrap")
    assert "no network" in terminal.isolation


def test_a_missing_bwrap_names_the_package(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(bwrap_module, "BWRAP_FALLBACKS", ())
    with pytest.raises(RuntimeError, match="bubblewrap"):
        Terminal({}, CommandLimits(**LIMITS))


# ---------------------------------------------------------------- output


def test_huge_binary_output_is_cut_clean(terminal):
    result = terminal.run("head -c 50000000 /dev/urandom; echo; echo the end")
    assert result.truncated and result.exit_code == 0
    assert result.output.endswith("the end\n")
    assert len(result.output) <= 2000 + len(cut_marker(10**9))
    assert not any(c in result.output for c in "\x00\x1b\r\x7f")


def test_nul_bytes_are_dropped(terminal):
    result = terminal.run("printf 'a\\0b\\0c\\n'")
    assert (result.output, result.truncated) == ("abc\n", False)


@pytest.mark.slow
def test_a_command_that_closes_its_output_runs_to_its_end():
    with open_terminal(wall_s=2) as terminal:
        result = terminal.run("echo first; exec >/dev/null 2>&1; sleep 1; echo x > done.txt")
        assert (result.output, result.exit_code, result.timed_out) == ("first\n", 0, False)
        assert result.wall_s >= 1 and terminal.read("done.txt") == "x\n"
        result = terminal.run("exec >&- 2>&-; sleep 100")
        assert result.timed_out and result.wall_s < 50  # ended by the 2 s limit, not at 100 s
        assert_host_untouched(terminal)


@pytest.mark.slow
def test_endless_output_ends_at_the_wall_limit():
    with open_terminal(wall_s=1, output_chars=100) as terminal:
        result = terminal.run("yes")
        assert result.timed_out and result.truncated
        assert result.output.startswith("y\ny\n") and len(result.output) < 200
        assert_host_untouched(terminal)


# ---------------------------------------------------------------- confinement


def test_writes_outside_the_workspace_fail(terminal):
    places = " ".join(f"{folder}/{MARK}" for folder in [*OTHER_PLACES, "/var/tmp"])
    result = terminal.run(f"for f in {places}; do echo x > $f && echo WROTE $f; done; true")
    assert "WROTE" not in result.output
    assert_host_untouched(terminal)


def test_tmp_is_private_and_gone_by_the_next_command(terminal):
    result = terminal.run(f"echo x > /tmp/{MARK} && echo x > /dev/shm/{MARK} && ls /tmp /dev/shm")
    assert result.exit_code == 0 and result.output.count(MARK) == 2
    assert terminal.run(f"ls /tmp /dev/shm | grep -c {MARK}").output == "0\n"
    assert_host_untouched(terminal)


def test_reading_root_and_the_repository_fails(terminal):
    targets = ["/root/.bashrc", str(REPO / "pyproject.toml"), str(REPO / "codefrontier" / "terminal.py"),
               "/etc/shadow"]
    result = terminal.run("; ".join(f"cat {t} >/dev/null 2>&1 && echo READ {t}" for t in targets)
                          + f"; ls {REPO} 2>/dev/null; true")
    assert "READ" not in result.output
    assert "pyproject.toml" not in result.output


@pytest.mark.skipif(not AS_ROOT, reason="only root can run commands under another uid")
def test_commands_run_under_an_unprivileged_uid_without_capabilities(terminal):
    uid, caps = terminal.run("id -u; grep CapEff /proc/self/status").output.split("\n", 1)
    assert int(uid) == terminal.uid != 0
    assert caps.split()[1] == "0000000000000000"
    assert terminal.run("ls -n -d /workspace").output.split()[2] == str(terminal.uid)


def test_commands_see_only_their_own_processes(terminal):
    pids = terminal.run("ls /proc | grep -E '^[0-9]+$'").output.split()
    assert len(pids) < 10 and str(os.getpid()) not in pids


def test_the_network_is_unreachable(terminal, listener):
    port = listener.getsockname()[1]
    probe = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)"
             "\n    print('connected')\nexcept OSError as error:\n    print('refused', error)\n")
    terminal.run(f"cat > probe.py <<'EOF'\n{probe}EOF")
    assert terminal.run("python probe.py").output.startswith("refused")
    assert_host_untouched(terminal, listener)


# ---------------------------------------------------------------- processes


# Each daemon holds a flock on beat.lock for as long as it lives, and writes `started`
# once it holds it; the command returns after that.
DAEMON_LOOP = "flock beat.lock sh -c 'echo 1 > started; while true; do sleep 0.01; done'"
DAEMONS = {
    "setsid_nohup": f"setsid nohup {DAEMON_LOOP} >/dev/null 2>&1 &",
    "nohup": f"nohup {DAEMON_LOOP} >/dev/null 2>&1 &",
    "double_fork": "python -c \"\nimport fcntl, os, time\nif os.fork() == 0:\n    os.setsid()\n"
                   "    if os.fork() == 0:\n        lock = open('beat.lock', 'w')\n"
                   "        fcntl.flock(lock, fcntl.LOCK_EX)\n        open('started', 'w').write('1')\n"
                   "        while True:\n            time.sleep(0.01)\n"
                   "    os._exit(0)\nos.wait()\n\"",
}
WAIT_FOR_DAEMON = "\nuntil [ -s started ]; do sleep 0.01; done; echo started"


@pytest.mark.parametrize("name", sorted(DAEMONS))
def test_a_daemon_is_gone_when_the_command_returns(terminal, name):
    result = terminal.run(DAEMONS[name] + WAIT_FOR_DAEMON)
    assert result.output.endswith("started\n") and not result.timed_out
    assert lock_is_free(os.path.join(terminal.workspace, "beat.lock"))
    assert_host_untouched(terminal)


def test_setsid_nohup_sleep_does_not_survive(terminal):
    terminal.run("setsid nohup sleep 1000 >/dev/null 2>&1 &")
    assert terminal_processes(terminal) == []
    assert "sleep 1000" not in terminal.run("ps -eo args").output
    assert_host_untouched(terminal)


@pytest.mark.slow
def test_sleep_hits_the_wall_limit_and_leaves_nothing():
    with open_terminal(wall_s=1) as terminal:
        start = time.monotonic()
        result = terminal.run("echo going; sleep 1000")
        assert result.timed_out and result.exit_code == -9
        assert result.output == "going\n"
        assert 1 <= result.wall_s < 100 and time.monotonic() - start < 100  # not 1000 s
        assert_host_untouched(terminal)


@pytest.mark.slow
def test_the_cpu_limit_ends_a_spinning_program():
    with open_terminal(cpu_s=1, wall_s=60) as terminal:  # the wall limit only on a busy host
        result = terminal.run("python -c 'while True: pass'")
        assert result.timed_out and result.wall_s < 60
        assert result.exit_code == 128 + 24  # SIGXCPU
        assert_host_untouched(terminal)


@pytest.mark.slow
def test_a_spinning_program_on_a_busy_host_ends_by_its_cpu_limit_not_the_wall_limit():
    """Which limit ends a computing command must not follow the host's load: two busy
    loops per core leave the command at most 40% of one, so its 1 CPU second takes 2.5 s
    or more of wall, past its 2 s wall limit, and the time it waits for a core is not
    counted against that limit (terminal.WAIT_CREDIT_LIMITS)."""
    cores = len(os.sched_getaffinity(0))
    # each in a session of its own: with the scheduler's autogroups, a session shares the
    # cores with the others as one, and the sandbox's command runs in a session of its own
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             start_new_session=True) for _ in range(2 * cores)]
    try:
        with open_terminal(cpu_s=1, wall_s=2) as terminal:
            result = terminal.run("python -c 'while True: pass'")
            assert_host_untouched(terminal)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert result.exit_code == 128 + 24, result  # SIGXCPU, not the wall limit's -9
    assert result.timed_out and result.wall_s > 2  # it did wait for a core


@pytest.mark.slow
@pytest.mark.parametrize("bomb", [
    ":(){ :|:& };:",
    "python -c \"\nimport os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
    "        pass\n\"",
])
def test_a_fork_bomb_is_contained(bomb):
    with open_terminal(wall_s=3, processes=32) as terminal:
        # one process, so that no pipeline member is caught between fork and exec
        census = "python -c \"import os; print(sum(p.isdigit() for p in os.listdir('/proc')))\""
        before = terminal.run(census).output
        result = terminal.run(bomb)
        assert result.wall_s < 100  # ended by its failed forks or by the 3 s wall limit
        assert_host_untouched(terminal)
        assert terminal.run(census).output == before


@pytest.mark.parametrize("command", ["kill -9 -1; echo survived", "kill -9 $PPID; echo after",
                                     "kill -9 1; echo after"])
def test_killing_everything_inside_ends_only_that_command(terminal, command):
    terminal.run("echo before > kept.txt")
    result = terminal.run(command)
    assert not result.timed_out
    assert terminal.read("kept.txt") == "before\n"
    assert_host_untouched(terminal)


@pytest.mark.slow
def test_memory_is_limited_per_process():
    with open_terminal(memory_mb=256) as terminal:
        result = terminal.run("python -c 'x = bytearray(512 * 2 ** 20)'")
        assert result.exit_code != 0 and "MemoryError" in result.output
        assert_host_untouched(terminal)


# ---------------------------------------------------------------- the disk


@pytest.mark.slow
def test_filling_the_disk_stops_at_the_cap():
    host_tmp_free = shutil.disk_usage(tempfile.gettempdir()).free
    with open_terminal(workspace_mb=8, file_mb=4) as terminal:
        result = terminal.run("dd if=/dev/zero of=big bs=1M count=100; "
                              "python -c \"\nfor i in range(100):\n"
                              "    open(f'f{i}', 'wb').write(b'z' * 2 ** 20)\n\"")
        assert result.exit_code != 0 or result.workspace_exceeded
        used = sum(f.stat().st_size for f in Path(terminal.workspace).rglob("*") if f.is_file())
        if AS_ROOT:  # a tmpfs of its own: the cap is exact, the write fails
            assert used <= 8 * 2**20
            assert not result.workspace_exceeded
            assert_host_untouched(terminal)
        else:  # on disk: RLIMIT_FSIZE, the quota watch, then no more commands
            assert result.workspace_exceeded and used <= 64 * 2**20
            with pytest.raises(WorkspaceExceeded):
                terminal.run("echo ok")
        # the private /tmp is capped too
        if AS_ROOT:
            result = terminal.run("for i in 1 2 3 4; do dd if=/dev/zero of=/tmp/f$i bs=1M "
                                  "count=3 2>&1 || exit 1; done")
            assert result.exit_code != 0 and "No space left" in result.output
    assert shutil.disk_usage(tempfile.gettempdir()).free > host_tmp_free - 64 * 2**20


@pytest.mark.skipif(not AS_ROOT, reason="the workspace is a tmpfs mount only as root")
def test_close_removes_and_unmounts_the_workspace():
    terminal = open_terminal({"a.txt": "x"})
    workspace = terminal.workspace
    assert workspace in Path("/proc/mounts").read_text()
    terminal.run("chmod 000 .; mkdir -p d && chmod 000 d")
    terminal.close()
    assert not os.path.exists(workspace)
    assert workspace not in Path("/proc/mounts").read_text()
    with pytest.raises(RuntimeError):
        terminal.run("echo ok")
    terminal.close()  # twice is fine


def test_close_removes_the_workspace(terminal):
    terminal.run("mkdir -p locked/in && echo x > locked/in/f && chmod 000 locked/in locked")
    workspace = terminal.workspace
    terminal.close()
    assert not os.path.exists(workspace)


def test_read_refuses_symlinks_out_of_the_workspace(terminal):
    terminal.run("echo inside > inner.txt; ln -s inner.txt ok; ln -s /etc/passwd abs; "
                 "ln -s ../../../../etc/passwd rel; ln -s /workspace/inner.txt abs_inside; "
                 "mkdir d; ln -s .. d/up; ln -s /etc d/etc; mkfifo pipe")
    assert terminal.read("inner.txt") == "inside\n"
    assert terminal.read("ok") == "inside\n"
    for refused in ("abs", "rel", "d/etc/passwd", "d/up/../../etc/passwd", "/etc/passwd",
                    "../x", "missing", "d", "pipe", "abs_inside"):
        assert terminal.read(refused) is None, refused
    assert terminal.read("data/input.txt", max_bytes=2) == "1 "


# ---------------------------------------------------------------- several at once


def test_two_terminals_have_their_own_uids_and_workspaces():
    with open_terminal({"f": "one"}) as first, open_terminal({"f": "two"}) as second:
        assert first.workspace != second.workspace
        assert first.uid is None or first.uid != second.uid
        assert first.run("cat f").output == "one"
        assert second.run("cat f").output == "two"


# ---------------------------------------------------------------- an unprivileged caller

NOBODY = 65534
NOBODY_SCRIPT = """
import fcntl, json, os, sys, time
from codefrontier.sandbox.terminal import CommandLimits, Terminal, WorkspaceExceeded
report = {}
with Terminal({"main.py": "print(6 * 7)"}, CommandLimits(cpu_s=10, wall_s=2, workspace_mb=8, output_chars=2000,
                                                   file_mb=4)) as t:
    report["isolation"] = t.isolation
    report["python"] = t.run("python main.py").output
    report["id"] = t.run("id -u").output.strip()
    report["writes"] = t.run("touch /x /etc/x /usr/x 2>&1; echo > /tmp/x && echo tmp-ok").output
    report["nested_userns"] = t.run("unshare -U true 2>&1 && echo allowed").output
    t.run("setsid nohup DAEMON_LOOP >/dev/null 2>&1 & WAIT_FOR_DAEMON")
    with open(os.path.join(t.workspace, "beat.lock"), "rb") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            report["daemon_gone"] = True
        except BlockingIOError:
            report["daemon_gone"] = False
    report["sleep"] = t.run("sleep 100").timed_out
    report["kill_all"] = t.run("kill -9 -1; echo x").exit_code
    report["after"] = t.run("echo ok").output
    report["network"] = t.run("python -c \\"import socket; socket.create_connection(('127.0.0.1', PORT), timeout=1)\\" 2>&1 | tail -1").output
    report["fill"] = t.run("for i in 1 2 3 4 5; do dd if=/dev/zero of=f$i bs=1M count=3 2>/dev/null; done").workspace_exceeded
    try:
        t.run("echo more")
        report["refused"] = False
    except WorkspaceExceeded:
        report["refused"] = True
    report["workspace"] = t.workspace
report["removed"] = not os.path.exists(report["workspace"])
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def package_copy():
    """The package where `nobody` can read it (the checkout may sit under /root)."""
    if not AS_ROOT or not shutil.which("setpriv") or not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs root, setpriv and /usr/bin/python3 to open a terminal as nobody")
    folder = tempfile.mkdtemp(prefix="codefrontier-nobody-")
    os.chmod(folder, 0o755)
    shutil.copytree(REPO / "codefrontier", Path(folder) / "codefrontier",
                    ignore=shutil.ignore_patterns("__pycache__"))  # written to meanwhile
    subprocess.run(["chmod", "-R", "a+rX", folder], check=True)
    yield folder
    shutil.rmtree(folder)


def _live_nobody_processes() -> list[int]:
    """nobody's processes but zombies (bwrap leaves its finished init to the host's init)."""
    live = []
    for pid in processes_with_uid(lambda uid: uid == NOBODY):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            live.append(pid)
    return live


@pytest.mark.slow
def test_an_unprivileged_terminal(package_copy, listener):
    import json

    before = set(_live_nobody_processes())
    script = (NOBODY_SCRIPT.replace("PORT", str(listener.getsockname()[1]))
              .replace("DAEMON_LOOP", DAEMON_LOOP.replace('"', '\\"'))
              .replace("WAIT_FOR_DAEMON", WAIT_FOR_DAEMON.replace("\n", "\\n")))
    done = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                           "/usr/bin/python3", "-c", script], capture_output=True, text=True,
                          cwd="/", env={"PYTHONPATH": package_copy, "PATH": "/usr/bin:/bin"},
                          timeout=120)
    if done.returncode != 0 and "bubblewrap could not start" in done.stderr:
        pytest.skip(f"unprivileged bubblewrap does not work here: {done.stderr[-500:]}")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["isolation"].startswith("bwrap (unprivileged user namespace)")
    assert report["python"] == "42\n"
    assert report["id"] == str(NOBODY)
    assert "Read-only file system" in report["writes"] and "tmp-ok" in report["writes"]
    assert "allowed" not in report["nested_userns"]
    assert report["daemon_gone"] is True
    assert report["sleep"] is True and report["kill_all"] == 137
    assert report["after"] == "ok\n"
    assert "unreachable" in report["network"] or "refused" in report["network"]
    assert report["fill"] is True and report["refused"] is True and report["removed"] is True
    assert set(_live_nobody_processes()) - before == set()
    with pytest.raises(BlockingIOError):
        listener.accept()
