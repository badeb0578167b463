"""The per-test child: confine this freshly forked process, then run the program in it.

The child is a fork of the sample process, which already holds the compiled
program, so a test costs a fork and no interpreter start. Everything here runs
after fork() and before the program: it must not return to the caller, and
every way out is os._exit with one of the codes below.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import math
import os
import resource
import signal
import sys
import traceback
from dataclasses import dataclass
from types import CodeType

from codefrontier.sandbox import linux

EXIT_MEMORY = 201  # MemoryError escaped the program
EXIT_UNSERIALIZABLE = 202  # a call-based return value that is not JSON data
EXIT_SETUP = 203  # confinement failed: the program never ran
EXIT_ASSERTION = 204  # function problems: the check code's assertion failed
RESULT_FD = 3  # call-based problems: the JSON of the return value; function: CHECK_PASSED
CHECK_PASSED = "passed"  # function problems: written to RESULT_FD once check() returns
PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None), list, tuple, dict, set,
               frozenset)
# Call-based programs run with the names LeetCode's environment provides. Not
# `from math import *`: math.pow would shadow the three-argument builtin pow.
CALL_PRELUDE = (
    "from typing import *\nfrom collections import *\nfrom heapq import *\n"
    "from bisect import *\nfrom itertools import *\nfrom functools import *\n"
    "from math import inf, gcd, lcm, sqrt, isqrt, ceil, floor, log, log2, comb, factorial\n"
    "import collections, heapq, bisect, itertools, functools, math\n"
)

CLEAN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/sandbox",
             "PYTHONHASHSEED": "0"}


@dataclass(frozen=True)
class Limits:
    cpu_s: float
    address_space_bytes: int
    output_bytes: int
    open_files: int
    processes: int  # RLIMIT_NPROC; 0 leaves it unset


@dataclass(frozen=True)
class Confinement:
    uid: int | None  # drop to this uid and gid; None keeps the current one
    drop_capabilities: bool
    parent_death_signal: bool  # needed where no pid namespace kills leftovers


def _set_limits(limits: Limits) -> None:
    # Whole seconds only: SIGXCPU at the first second past the limit, SIGKILL one later.
    # The verdict compares measured CPU time with the exact limit.
    cpu = max(1, math.ceil(limits.cpu_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.address_space_bytes,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_bytes,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes,) * 2)


def prepare_forking_process(scratch: str) -> None:
    """Set up, once per worker, everything the test children inherit unchanged.

    Runs in the (trusted) zygote: work done here is not repeated in every test
    child, where each touched page costs a copy-on-write fault.
    """
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(CLEAN_ENV)
    os.umask(0o077)
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    for name in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(name, signal.SIG_DFL)
    sys.argv = ["main.py"]
    # Streams over fds 0-2, as a new interpreter has them; each test child moves
    # its own stdin/stdout/stderr onto those fds, and the buffers are still empty.
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)


def _confine(fds: tuple[int, int, int, int], limits: Limits, confinement: Confinement) -> None:
    os.setsid()
    for target, fd in enumerate(fds):
        if fd >= 0:
            os.dup2(fd, target)
    os.closerange(4, 1 << 16)
    _set_limits(limits)
    if confinement.uid is not None:
        os.setgroups([])
        os.setresgid(confinement.uid, confinement.uid, confinement.uid)
        os.setresuid(confinement.uid, confinement.uid, confinement.uid)
    if confinement.drop_capabilities:
        linux.drop_all_capabilities()
    if confinement.parent_death_signal:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    if "random" in sys.modules:
        # random reseeds itself from the OS after fork; a fixed seed makes programs
        # that never seed it judge the same way twice.
        sys.modules["random"].seed(0)


EXIT_FLUSH_FAILED = 120  # what CPython exits with when stdout cannot be flushed at exit


def _flush_streams() -> bool:
    """Flush stdout and stderr as interpreter shutdown would; False if stdout failed."""
    stdout_ok = True
    try:
        sys.stdout.flush()
    except BaseException:  # the program may have replaced, closed or broken the stream
        stdout_ok = False
    with contextlib.suppress(BaseException):
        sys.stderr.flush()
    return stdout_ok


def _call_solution(namespace: dict, func_name: str, stdin_text: str) -> None:
    args = [json.loads(line) for line in stdin_text.splitlines()]
    solution = namespace["Solution"]()
    result = getattr(solution, func_name)(*args)
    try:
        encoded = json.dumps(result).encode()
    except (TypeError, ValueError, RecursionError):
        _flush_streams()
        os._exit(EXIT_UNSERIALIZABLE)
    view = memoryview(encoded)
    while view:
        view = view[os.write(RESULT_FD, view):]


def _plain(value, depth: int = 0) -> bool:
    """Whether a value is built-in data all the way down (no object of the program's own
    class, whose __eq__ could answer True to every assert)."""
    if type(value) not in PLAIN_TYPES or depth > 100:
        return False
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_plain(item, depth + 1) for item in value)
    return True


def _check_function(namespace: dict, func_name: str, check_source: str) -> None:
    """Run the problem's check code on the program's function (HumanEval's protocol), its
    results checked to be plain data; an assertion that fails is EXIT_ASSERTION."""
    candidate = namespace[func_name]

    def plain_results(*args, **kwargs):
        value = candidate(*args, **kwargs)
        if not _plain(value):
            _flush_streams()
            os._exit(EXIT_UNSERIALIZABLE)
        return value

    exec(compile(check_source, "check", "exec"), namespace)
    try:
        namespace["check"](plain_results)
    except AssertionError:
        _flush_streams()
        os._exit(EXIT_ASSERTION)
    os.write(RESULT_FD, CHECK_PASSED.encode())


def run_test_child(
    code: CodeType,
    base_namespace: dict,
    kind: str,
    func_name: str,
    stdin_text: str,
    fds: tuple[int, int, int, int],
    limits: Limits,
    confinement: Confinement,
) -> None:
    """Confine this process and run one test of the program. Never returns."""
    try:
        _confine(fds, limits, confinement)
    except BaseException as error:
        with contextlib.suppress(BaseException):
            os.write(2, f"sandbox setup failed: {error!r}\n".encode())
        os._exit(EXIT_SETUP)
    status = 0
    try:
        namespace = dict(base_namespace)
        namespace["__builtins__"] = builtins
        exec(code, namespace)
        if kind == "call":
            _call_solution(namespace, func_name, stdin_text)
        elif kind == "function":
            _check_function(namespace, func_name, stdin_text)
    except SystemExit as exit_request:
        status = _exit_status(exit_request.code)
    except MemoryError:
        os._exit(EXIT_MEMORY)
    except BaseException as error:
        try:
            traceback.print_exception(type(error), error, _program_frames(error.__traceback__))
        except MemoryError:
            os._exit(EXIT_MEMORY)
        except BaseException:
            pass
        status = 1
    if not _flush_streams() and status == 0:
        status = EXIT_FLUSH_FAILED
    os._exit(status)


def _program_frames(tb):
    """The traceback from its first frame outside this harness. A program's error shows
    its own frames only: the harness's file path depends on where the project is
    checked out, and tool observations that held it made two checkouts sample
    different episodes (an error raised by the harness itself, as calling a method the
    class lacks, keeps just its message)."""
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1
