"""Hostile programs: each gets its verdict, and the host stays untouched.

After every program: no process runs under a sandbox uid, no marker file exists
anywhere the program tried to write, the loopback listener saw no connection,
no worker died (one a loaded machine kept silent may be replaced: the sample is
judged again), and a correct program is still judged correct.
"""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SUM_OK, sandbox_processes, stdin_problem

from codefrontier.judge import Sample
from codefrontier.problems.schema import Problem, Test
from codefrontier.sandbox.isolation import python_dirs

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
MARK = f"cf-hostile-{secrets.token_hex(4)}"
SECRET = secrets.token_hex(16)
WRITABLE_ON_HOST = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"]
OTHER_PLACES = [str(REPO), "/root", "/etc", "/usr", "/home", "/", "/usr/local/bin"]
PROBLEM = Problem("double", "Double", "Print 2n.", "easy", "test", "stdin",
                  tests=(Test("21\n", "42"),), time_limit_s=1.0, memory_limit_mb=256)
# The expected output is a secret the program could only print by reading the judge's memory.
SECRET_PROBLEM = Problem("secret", "Secret", "Guess.", "easy", "test", "stdin",
                         tests=(Test("x\n", SECRET),), time_limit_s=2.0)


def program(body: str) -> str:
    return "import os, sys, signal, time, socket, threading\n" + body


HOSTILE = {
    "fork_bomb": ("while True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", "TLE"),
    "fork_bomb_that_sleeps": ("for _ in range(10000):\n    try:\n        os.fork()\n    except OSError:\n        break\ntime.sleep(60)\n", "TLE"),
    "memory_bomb": ("hog = []\nwhile True:\n    hog.append(bytearray(1 << 24))\n", "MLE"),
    "infinite_loop": ("while True:\n    pass\n", "TLE"),
    "sleep_forever": ("time.sleep(10 ** 6)\n", "TLE"),
    "blocked_on_stdin": ("sys.stdin.read()\nsys.stdin = open('/dev/stdin')\nr, w = os.pipe()\nos.read(r, 1)\n", "TLE"),
    "huge_output": ("while True:\n    sys.stdout.write('y' * 65536)\n", "OLE"),
    "ignores_termination_signals": (
        "for s in (signal.SIGTERM, signal.SIGXCPU, signal.SIGINT, signal.SIGHUP):\n"
        "    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass\n", "TLE"),
    "spinning_threads": (
        "def spin():\n    while True:\n        pass\n"
        "for _ in range(4):\n    threading.Thread(target=spin, daemon=True).start()\n"
        "time.sleep(60)\n", "TLE"),
    "infinite_recursion": ("def f():\n    return f()\nf()\n", "RE"),
    "deep_but_finite_recursion": (
        "sys.setrecursionlimit(10 ** 6)\ndef depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
        "print(42 if depth(200000) == 200000 else 0)\n", "AC"),
    "compile_bomb_nesting": ("x = " + "(" * 100000 + ")" * 100000 + "\n", "RE"),
    "compile_bomb_expression": ("x = " + "1+" * 1000000 + "1\n", "RE"),
    "nul_byte_in_source": ("print(42)\x00\n", "RE"),
    "closes_its_own_stdout": ("os.close(1)\nprint(42)\n", "RE"),
    "exit_without_flush": ("print(42)\nos._exit(0)\n", "WA"),
    "fd_exhaustion": (
        "held = []\ntry:\n    while True:\n        held.append(open('/dev/null'))\nexcept OSError:\n    pass\n"
        "print(42)\n", "AC"),
    "fills_the_disk": (
        "with open('/tmp/fill', 'wb') as f:\n    while True:\n        f.write(b'z' * (1 << 20))\n", "OLE"),
    "kill_parent": (
        "try:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError:\n    pass\nprint(42)\n", "AC"),
    "kill_everything": (
        "try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\nprint(42)\n", "AC"),
    "kill_process_group_of_init": (
        "for pid in set(range(1, 100)) - {os.getpid()}:\n    try:\n        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError:\n        pass\nprint(42)\n", "AC"),
    "setsid_double_fork_daemon": (
        "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "        while True:\n            open(f'/tmp/{MARK}-daemon', 'a').write('x')\n            time.sleep(0.01)\n"
        "    os._exit(0)\nos.wait()\nprint(42)\n", "AC"),
    "privilege_escalation": (
        "escaped = []\nfor attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.chroot('/'),\n"
        "                lambda: os.setgroups([0]), lambda: socket.sethostname('x'),\n"
        "                lambda: open('/proc/sys/kernel/hostname', 'w').write('x')):\n"
        "    try:\n        attempt()\n        escaped.append(attempt)\n    except OSError:\n        pass\n"
        "print(42 if not escaped else 'escaped')\n", "AC"),
    "reads_the_judges_files": (
        "readable = []\nfor path in JUDGE_FILES:\n    try:\n        open(path, 'rb').read(1)\n"
        "        readable.append(path)\n    except OSError:\n        pass\n"
        "print(42 if not readable else readable)\n", "AC"),
    "sees_no_host_processes": (
        "pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
        "print(42 if len(pids) < 10 and str(HOST_PID) not in pids else pids)\n", "AC"),
    "clean_environment": (
        "extra = set(os.environ) - {'PATH', 'LANG', 'HOME', 'PYTHONHASHSEED'}\n"
        "print(42 if not extra else sorted(extra))\n", "AC"),
    "connects_to_loopback_listener": (
        "try:\n    socket.create_connection(('127.0.0.1', PORT), timeout=2).send(b'hi')\n    print('connected')\n"
        "except OSError:\n    print(42)\n", "AC"),
    "patches_the_judge_in_its_own_memory": (
        "for name, module in list(sys.modules.items()):\n    if name.startswith('codefrontier'):\n"
        "        for attr in ('tokens_match', 'output_verdict', 'json_outputs_match', 'outputs_match'):\n"
        "            if hasattr(module, attr):\n                setattr(module, attr, lambda *a, **k: True)\n"
        "print('wrong')\n", "WA"),
}
for _name, _where in [("writes_tmp", "/tmp"), ("writes_dev_shm", "/dev/shm"),
                      ("writes_var_tmp", "/var/tmp")]:
    HOSTILE[_name] = (f"open('{_where}/' + MARK, 'w').write('x')\nprint(42)\n", "AC")
HOSTILE["writes_elsewhere"] = (
    "written = []\nfor folder in PLACES:\n    try:\n        open(os.path.join(folder, MARK), 'w').write('x')\n"
    "        written.append(folder)\n    except OSError:\n        pass\n"
    "print(42 if not written else written)\n", "AC")


def judge_files() -> list[str]:
    return [str(REPO / "codefrontier" / "judge" / "runs.py"), str(REPO / "pyproject.toml"),
            f"/proc/{os.getpid()}/environ", f"/proc/{os.getpid()}/cmdline", "/root/.bashrc",
            "/etc/shadow", str(REPO / "tests" / "test_hostile.py")]


def assert_host_untouched(judge, listener, workers_died):
    assert sandbox_processes(judge) == []
    for folder in WRITABLE_ON_HOST + OTHER_PLACES:
        leftovers = [p.name for p in Path(folder).glob(f"{MARK}*")] if os.path.isdir(folder) else []
        assert leftovers == [], f"{folder} has {leftovers}"
    with pytest.raises(BlockingIOError):
        listener.accept()
    # the program could not kill its worker; one that a loaded machine kept from
    # answering in time (a silent worker) is replaced and the sample judged again
    assert judge.losses_by_cause["died"] == workers_died
    [check] = judge.judge({"sum": stdin_problem()}, [Sample("sum", 0, code=SUM_OK)])
    assert check.outcome == "correct"


def hostile_code(name: str, listener) -> str:
    body, _ = HOSTILE[name]
    if name.startswith("compile_bomb"):
        return body
    prelude = (f"MARK = {MARK!r}\nPORT = {listener.getsockname()[1]}\nPLACES = {OTHER_PLACES!r}\n"
               f"JUDGE_FILES = {judge_files()!r}\nHOST_PID = {os.getpid()}\n")
    return program(prelude + body)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_program(judge, listener, name):
    died = judge.losses_by_cause["died"]
    [result] = judge.judge({"double": PROBLEM}, [Sample("double", 0, code=hostile_code(name,
                                                                                      listener))])
    assert result.verdicts == [HOSTILE[name][1]], result.error
    assert_host_untouched(judge, listener, died)


@pytest.fixture
def oversubscribed():
    """Three busy loops per core this process may use, for the tests that ask for it."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(3 * len(os.sched_getaffinity(0)))]
    yield len(spinners)
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_program_under_load(judge, listener, oversubscribed, name):
    """The same verdicts with three busy loops per core beside the judge: a loaded
    machine slows judging but decides nothing (a lost worker is replaced, never a
    verdict)."""
    died = judge.losses_by_cause["died"]
    [result] = judge.judge({"double": PROBLEM}, [Sample("double", 0, code=hostile_code(name,
                                                                                      listener))])
    assert result.verdicts == [HOSTILE[name][1]], result.error
    assert_host_untouched(judge, listener, died)


def test_nothing_left_behind_for_the_next_test(judge, listener):
    """A daemon and files from one test are gone before the next test starts."""
    plant = program(
        f"MARK = {MARK!r}\n"
        "for folder in ('/tmp', '/var/tmp', '/dev/shm', '.'):\n"
        "    os.makedirs(os.path.join(folder, 'locked'), exist_ok=True)\n"
        "    open(os.path.join(folder, 'locked', MARK), 'w').write('x')\n"
        "    os.chmod(os.path.join(folder, 'locked'), 0)\n"
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\n    os._exit(0)\n"
        "print(42 if not os.path.exists('/tmp/previous') else 0)\nopen('/tmp/previous', 'w')\n")
    # Python's own folders are bound into /tmp where the interpreter lives there
    python = python_dirs()
    check = program(
        f"python = {python!r}\n"
        "left = [f for d in ('/tmp', '/var/tmp', '/dev/shm', '.') for f in os.listdir(d)\n"
        "        if not any((p + '/').startswith(os.path.join(d, f) + '/') for p in python)]\n"
        "others = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()\n"
        "          and os.stat('/proc/' + p).st_uid == os.getuid()]\n"
        "print(42 if not left and not others else (left, others))\n")
    problem = Problem("double2", "Double", "Print 2n.", "easy", "test", "stdin",
                      tests=(Test("21\n", "42"), Test("21 \n", "42")), time_limit_s=1.0)
    died = judge.losses_by_cause["died"]
    results = judge.judge({"double2": problem}, [Sample("double2", 0, code=plant),
                                                 Sample("double2", 1, code=check)])
    assert [r.verdicts for r in results] == [["AC", "AC"], ["AC", "AC"]]
    assert_host_untouched(judge, listener, died)


def memory_search(needle: str) -> str:
    """A program that prints the 32 hex digits starting at `needle` wherever it finds
    them in its own memory (its own copy of the 8-digit needle aside), else "none".

    The sandbox makes programs non-dumpable, so /proc/self/mem is closed to them;
    ctypes reads every writable anonymous mapping (heap, arenas, stack) instead,
    and the garbage collector's objects are searched too.
    """
    return program(
        "import ctypes, gc\n"
        f"needle = {needle!r}\n"
        "found = [o[o.index(needle):][:32] for o in gc.get_objects()\n"
        "         if isinstance(o, str) and needle in o and len(o) >= 32]\n"
        "for line in open('/proc/self/maps'):\n"
        "    fields = line.split()\n"
        "    if not fields[1].startswith('rw') or (len(fields) > 5 and not fields[5].startswith('[')):\n"
        "        continue\n"
        "    if len(fields) > 5 and fields[5] in ('[vvar]', '[vsyscall]', '[vdso]'):\n"
        "        continue\n"
        "    start, end = (int(x, 16) for x in fields[0].split('-'))\n"
        "    chunk = ctypes.string_at(start, end - start)\n"
        "    at = chunk.find(needle.encode())\n"
        "    while at >= 0:\n"
        "        candidate = chunk[at:at + 32].decode(errors='replace')\n"
        "        if len(candidate) == 32 and all(c in '0123456789abcdef' for c in candidate):\n"
        "            found.append(candidate)\n"
        "        at = chunk.find(needle.encode(), at + 1)\n"
        "print(found[0] if found else 'none')\n")


def test_the_memory_search_finds_what_the_program_may_see(judge):
    """Positive control: a test's input is in the program's memory, and the search finds it."""
    visible = secrets.token_hex(16)
    problem = Problem("control", "Control", "Echo.", "easy", "test", "stdin",
                      tests=(Test(visible + "\n", visible),), time_limit_s=2.0)
    [result] = judge.judge({"control": problem},
                           [Sample("control", 0, code=memory_search(visible[:8]))])
    assert result.verdicts == ["AC"], result.error


def test_programs_cannot_read_expected_outputs_from_memory(judge):
    """The sandboxed process never shares memory with the expected outputs."""
    [result] = judge.judge({"secret": SECRET_PROBLEM},
                           [Sample("secret", 0, code=memory_search(SECRET[:8]))])
    assert result.verdicts == ["WA"], result.error
    assert sandbox_processes(judge) == []
