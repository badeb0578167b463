"""A judge worker: one pre-started process per core that judges samples it is sent.

Three kinds of process, so that no untrusted program ever shares memory with
the expected outputs:

* the **worker** (this module's ``main``) talks to the pool over stdin/stdout,
  holds the tests and compares outputs. It forks exactly once, at start-up,
  before it has seen any test, and never runs untrusted code;
* the **zygote**, that single child: init of the sandbox's namespaces. It
  receives a program and its test inputs (never outputs) and forks a sample
  process for each;
* the **sample process** compiles the program once (a compile bomb takes down
  only this process), then forks one confined child per test, reports each
  run to the worker and waits for "next" or "stop". It is a child subreaper,
  so after each test every leftover descendant (setsid daemons included) is
  killed and reaped before the next test starts.

Run as ``python -m codefrontier.judge.worker [--max-isolation LEVEL] [--cache-mb MB]``
(the pool does); the protocol is `wire` messages on stdin/stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import resource
import select
import shutil
import signal
import time
import traceback
from dataclasses import dataclass

from codefrontier.judge import wire
from codefrontier.judge.cache import ByteBudgetCache, text_bytes
from codefrontier.judge.child import (
    CALL_PRELUDE,
    Confinement,
    Limits,
    prepare_forking_process,
    run_test_child,
)
from codefrontier.judge.runs import (
    StreamEnds,
    TestRun,
    ends_to_wire,
    execute_request,
    judge_request,
)
from codefrontier.judge.timing import kill_after_s
from codefrontier.sandbox import procfs
from codefrontier.sandbox.isolation import (
    LEVELS,
    PRIVATE_TMPFS,
    SCRATCH,
    Isolation,
    SandboxError,
    build_private_root,
    check_python_shown,
    clear_folder,
    enter_namespaces,
    files_in_use,
)
from codefrontier.sandbox.linux import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    PR_SET_PDEATHSIG,
    prctl,
)

# Modules a program is likely to import, loaded once so each test's import is a
# dictionary lookup (the private root can still import the rest of the stdlib).
PRELOAD = [
    "array", "bisect", "collections", "copy", "datetime", "decimal", "fractions", "functools",
    "heapq", "itertools", "json", "math", "operator", "random", "re", "statistics", "string",
    "typing",
]
SANDBOX_UID_BASE = 200_000  # + the worker's pid: unique among live workers
TMPFS_MB = 256
# Tests cached per problem in the worker, inputs in the zygote (each, per worker):
# a sample then sends only its program.
CACHE_BYTES = 256 * 2**20


# ----------------------------------------------------------------- sample process


def _memfd(name: str) -> int:
    return os.memfd_create(name, os.MFD_CLOEXEC)


def _read_memfd(fd: int, limit: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, min(size, limit), 0)


def _read_memfd_tail(fd: int, limit: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, min(size, limit), max(0, size - limit))


def _read_memfd_ends(fd: int, limit: int) -> StreamEnds:
    """The first and last `limit` bytes of the file (the tail empty when the head is all)."""
    size = os.fstat(fd).st_size
    head = os.pread(fd, min(size, limit), 0)
    tail = os.pread(fd, limit, size - limit) if size > 2 * limit else b""
    return StreamEnds(head, tail, size)


def _address_space_in_use() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _has_children() -> bool:
    """True while any process is left below this subreaper (one syscall)."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


def _kill_descendants(isolation: Isolation) -> None:
    """Kill and reap every process this subreaper has below it.

    A subreaper inherits every orphan below it, so "no children" means nothing is left.
    """
    while _has_children():
        if isolation.pid_namespace:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # everything in the namespace but init and us
        else:
            for pid in procfs.descendants(os.getpid()):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while True:
                os.waitpid(-1, 0)


class _TestFiles:
    """The memfds a test child gets as stdin, stdout, stderr and result, reused per test."""

    def __init__(self, call_based: bool) -> None:
        self.stdin, self.stdout, self.stderr = _memfd("stdin"), _memfd("stdout"), _memfd("stderr")
        self.result = _memfd("result") if call_based else -1

    @property
    def fds(self) -> tuple[int, int, int, int]:
        return self.stdin, self.stdout, self.stderr, self.result

    def reset(self, stdin_bytes: bytes) -> None:
        # A test child shares these files' offsets (dup2), so rewind as well as truncate.
        for fd in self.fds:
            if fd >= 0 and os.lseek(fd, 0, os.SEEK_END):  # the size: skip empty files
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
        view = memoryview(stdin_bytes)
        while view:
            view = view[os.write(self.stdin, view):]
        os.lseek(self.stdin, 0, os.SEEK_SET)


def idle_limit_s(time_limit_s: float) -> float:
    """Seconds a test may spend neither running nor waiting for a CPU (asleep, blocked,
    or waiting on a child) before the wall-clock backstop kills it."""
    return 2.0 * time_limit_s + 1.0


def hard_wall_limit_s(time_limit_s: float) -> float:
    """A ceiling on wall time whatever the load: a program this starved is not judged."""
    return 20.0 * time_limit_s + 30.0


def _busy_s(pid: int) -> float | None:
    """Seconds the process's busiest thread has been on a CPU or queued for one
    (/proc/PID/task/*/schedstat); None when that cannot be read."""
    busiest = None
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as handle:
                on_cpu_ns, waiting_ns, _ = handle.read().split()
        except (OSError, ValueError):
            continue
        busy = (int(on_cpu_ns) + int(waiting_ns)) / 1e9
        busiest = busy if busiest is None else max(busiest, busy)
    return busiest


def _wait_with_limits(pid: int, pidfd: int, time_limit_s: float, start: float) -> bool:
    """Wait for the test process, ending it at `timing.kill_after_s` of its CPU limit;
    True when the wall-clock backstop killed it.

    The kill is enforced to the tick (RLIMIT_CPU counts whole seconds, so a 0.5 s
    limit would cost a slow program a full second of CPU; it stays as the backstop
    for threads). The backstop counts idle time (wall time less time on or queued for
    a CPU), so a program slowed by a loaded machine is judged by its CPU time, never
    by the load.
    """
    idle_limit, hard_limit = idle_limit_s(time_limit_s), hard_wall_limit_s(time_limit_s)
    cpu_limit = kill_after_s(time_limit_s)
    timeout = min(cpu_limit, idle_limit)  # one thread gains at most wall time in CPU
    while True:
        if select.select([pidfd], [], [], timeout)[0]:
            return False
        wall = time.monotonic() - start
        cpu, busy = procfs.cpu_s(pid), _busy_s(pid)
        if select.select([pidfd], [], [], 0)[0]:  # it ended meanwhile
            return False
        if cpu is not None and cpu >= cpu_limit:
            os.kill(pid, signal.SIGKILL)  # a SIGKILL past the CPU limit is TLE (runs.py)
            return False
        # an unreadable /proc entry leaves the plain wall-clock backstop
        idle = wall - (busy or 0.0)
        if idle >= idle_limit or wall >= hard_limit:
            os.kill(pid, signal.SIGKILL)
            return True
        timeout = max(0.005, min(cpu_limit - (cpu or 0.0), idle_limit - idle,
                                 hard_limit - wall))


def _run_one_test(code, namespace, request, stdin_text, files: _TestFiles, limits, confinement,
                  isolation, read_output: bool = True) -> TestRun:
    # a function problem's input is its check code, run by the harness, not read by the
    # program: its stdin stays empty
    files.reset(b"" if request["kind"] == "function" else stdin_text.encode())
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        run_test_child(code, namespace, request["kind"], request["func_name"], stdin_text,
                       files.fds, limits, confinement)
    pidfd = os.pidfd_open(pid)
    wall_timeout = _wait_with_limits(pid, pidfd, request["time_limit_s"], start)
    _, status, usage = os.wait4(pid, 0)
    wall_s = time.monotonic() - start
    os.close(pidfd)
    _kill_descendants(isolation)
    output_fd = files.result if files.result >= 0 else files.stdout
    return TestRun(
        exit_code=os.waitstatus_to_exitcode(status),
        cpu_s=usage.ru_utime + usage.ru_stime,
        wall_s=wall_s,
        peak_mb=usage.ru_maxrss / 1024.0,
        wall_timeout=wall_timeout,
        output=_read_memfd(output_fd, limits.output_bytes) if read_output else b"",
        output_size=os.fstat(files.stdout).st_size,
        stderr=_read_memfd_tail(files.stderr, 2000).decode("utf-8", "replace"),
    )


def _compile(source: str, filename: str = "main.py"):
    """Compile in this (disposable) process with a temporary memory cap."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_address_space_in_use() + (1 << 30), hard))
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@dataclass(frozen=True)
class _Sandbox:
    """What every sample process of a worker shares."""

    isolation: Isolation
    confinement: Confinement
    processes: int  # RLIMIT_NPROC per test, 0 for none
    # Folders a test may write to, emptied after each test, each with the inode count
    # of its own (empty) tmpfs, or None where it shares a file system with the host.
    writable: tuple[tuple[str, int | None], ...]
    keep: tuple[str, ...] = ()  # Python's folders, where bound inside a writable one

    def clear_writable(self) -> None:
        for folder, empty in self.writable:
            if empty is None or files_in_use(folder) != empty:
                clear_folder(folder, self.keep)


def sample_process(request: dict, sandbox: _Sandbox, inbox: int, outbox: int) -> None:
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    seq = request["seq"]
    try:
        code = _compile(request["code"])
    except BaseException as error:
        message = "".join(traceback.format_exception_only(type(error), error))[-2000:]
        wire.send(outbox, {"op": "compile_error", "seq": seq, "error": message})
        os._exit(0)
    namespace = {"__name__": "__main__"}
    if request["kind"] == "call":
        exec(CALL_PRELUDE, namespace)
    limits = Limits(
        cpu_s=kill_after_s(request["time_limit_s"]),
        address_space_bytes=_address_space_in_use() + request["memory_limit_mb"] * 2**20,
        output_bytes=int(request["output_limit_mb"] * 2**20),
        open_files=64,
        processes=sandbox.processes,
    )
    files = _TestFiles(call_based=request["kind"] in ("call", "function"))
    # execute(): the ends of stdout and stderr instead of the output to compare
    excerpt = request.get("excerpt_bytes", 0)
    gc.freeze()
    index, inputs = 0, request["inputs"]
    while index < len(inputs):
        run = _run_one_test(code, namespace, request, inputs[index], files, limits,
                            sandbox.confinement, sandbox.isolation, read_output=not excerpt)
        sandbox.clear_writable()
        header, payload = run.to_wire()
        if excerpt:  # stdout, stderr and (call-based) the return value's JSON
            streams = [fd for fd in (files.stdout, files.stderr, files.result) if fd >= 0]
            header["streams"], payload = ends_to_wire(
                [_read_memfd_ends(fd, excerpt) for fd in streams])
        wire.send(outbox, {"op": "test", "seq": seq, "index": index, **header}, payload)
        reply, _ = wire.receive(inbox)
        if reply.get("seq") != seq or reply.get("op") not in ("next", "again"):
            break
        if reply["op"] == "next":  # "again": the same test, timed once more
            index += 1
    wire.send(outbox, {"op": "done", "seq": seq})
    os._exit(0)


# ------------------------------------------------------------------------ zygote


def _preload(modules: list[str]) -> None:
    """Import what programs commonly use, once, so that a test's import is a dictionary lookup.

    `random` registers an at-fork hook that reseeds it from the OS in every child:
    a syscall and a dozen page faults per test, and moot, since each test child
    seeds it with 0 for reproducibility. Importing with hooks disabled skips it;
    the worker itself must not have imported random before (see test_worker_imports).
    """
    register_at_fork = os.register_at_fork
    os.register_at_fork = lambda **hooks: None
    try:
        for module in modules:
            __import__(module)
    finally:
        os.register_at_fork = register_at_fork


def _reap_until(pid: int) -> int:
    """Wait for `pid`, reaping any other child (orphans) on the way; return its status."""
    while True:
        reaped, status = os.waitpid(-1, 0)
        if reaped == pid:
            return status


def _close_fds_except(*keep: int) -> None:
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def zygote(isolation: Isolation, inbox: int, outbox: int, uid: int | None, nproc: int,
           cache_bytes: int) -> None:
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    devnull = os.open("/dev/null", os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    _close_fds_except(inbox, outbox)
    python: list[str] = []
    if isolation.private_fs:
        try:
            python = build_private_root(TMPFS_MB)
            check_python_shown(python)
        except (OSError, SandboxError) as error:
            # the pool raises this as the sandbox's fault, once, instead of judging
            wire.send(outbox, {"op": "failed", "error": f"{type(error).__name__}: {error}"})
            return
        scratch = SCRATCH
        writable = tuple((folder, files_in_use(folder)) for folder in PRIVATE_TMPFS)
    else:
        scratch = f"/tmp/codefrontier-scratch-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)  # a dead worker's, whose pid we reuse
        os.mkdir(scratch)
        os.chmod(scratch, 0o777)
        writable = ((scratch, None),)
    _preload(PRELOAD)
    # Inherited by every sample and test process: the OOM killer takes them before
    # anything of the caller's. Written before the process becomes non-dumpable,
    # which hands its /proc files to root.
    with open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("1000")
    prctl(PR_SET_DUMPABLE, 0)
    prepare_forking_process(scratch)
    sandbox = _Sandbox(isolation, Confinement(uid=uid,
                                              drop_capabilities=isolation.level == "userns",
                                              parent_death_signal=not isolation.pid_namespace),
                       processes=nproc, writable=writable,
                       keep=tuple(python) if isolation.private_fs else ())
    gc.freeze()
    wire.send(outbox, {"op": "ready", "isolation": isolation.to_dict()})
    try:
        _serve_samples(sandbox, inbox, outbox, cache_bytes)
    finally:
        if not isolation.private_fs:
            shutil.rmtree(scratch, ignore_errors=True)


def _inputs_for(request: dict, cache: ByteBudgetCache, inbox: int, outbox: int) -> list[str]:
    """The sample's test inputs: cached per problem, asked of the worker when missing;
    execute() sends its one input along, which is not cached."""
    if "inputs" in request:
        return request["inputs"]
    key = request["tests_key"]
    inputs = cache.get(key)
    if inputs is None:
        wire.send(outbox, {"op": "need_inputs", "seq": request["seq"]})
        while True:
            reply, _ = wire.receive(inbox)
            if reply.get("op") == "inputs" and reply.get("seq") == request["seq"]:
                break  # anything else is a late reply to a dead sample process
        inputs = reply["inputs"]
        cache.put(key, inputs, text_bytes(inputs))
    return inputs


def _serve_samples(sandbox: _Sandbox, inbox: int, outbox: int, cache_bytes: int) -> None:
    inputs_cache = ByteBudgetCache(cache_bytes)
    while True:
        request, _ = wire.receive(inbox)
        if request.get("op") == "exit":
            return
        if request.get("op") != "sample":
            continue  # a late reply to a sample process that has died
        request["inputs"] = _inputs_for(request, inputs_cache, inbox, outbox)
        pid = os.fork()
        if pid == 0:
            try:
                sample_process(request, sandbox, inbox, outbox)
            finally:
                os._exit(70)
        status = _reap_until(pid)
        _kill_descendants(sandbox.isolation)
        wire.send(outbox, {"op": "sample_end", "seq": request["seq"],
                           "status": os.waitstatus_to_exitcode(status)})


# ------------------------------------------------------------------------ worker


def _count_own_processes() -> int:
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


def _process_allowance(isolation: Isolation, per_test: int, already_running: int) -> int:
    """RLIMIT_NPROC for a test. It counts every process and thread of the uid, so
    under the caller's own uid leave room for what the caller already runs."""
    if isolation.uid_drop:
        return per_test
    return already_running + per_test


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-isolation", choices=LEVELS, default="namespaces")
    parser.add_argument("--processes-per-test", type=int, default=32)
    parser.add_argument("--cache-mb", type=float, default=CACHE_BYTES / 2**20,
                        help="tests (worker) and inputs (zygote) kept per problem")
    args = parser.parse_args(argv)
    pool_in, pool_out = 0, 1
    already_running = _count_own_processes()  # before the pid namespace hides them
    isolation = enter_namespaces(args.max_isolation)
    uid = SANDBOX_UID_BASE + os.getpid() if isolation.uid_drop else None
    nproc = _process_allowance(isolation, args.processes_per_test, already_running)
    to_zygote = os.pipe()
    from_zygote = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(to_zygote[1])
        os.close(from_zygote[0])
        try:
            zygote(isolation, to_zygote[0], from_zygote[1], uid, nproc,
                   int(args.cache_mb * 2**20))
        except BaseException:
            traceback.print_exc()
            os._exit(70)
        os._exit(0)
    os.close(to_zygote[0])
    os.close(from_zygote[1])
    # No parent-death signal here: it fires when the *thread* that started us exits,
    # and pools restart workers from short-lived threads. A vanished pool closes our
    # stdin instead, which ends the loop below after the sample in progress.
    zygote_in, zygote_out = to_zygote[1], from_zygote[0]
    ready, _ = wire.receive(zygote_out)
    wire.send(pool_out, ready)
    if ready.get("op") != "ready":
        os.waitpid(pid, 0)
        return
    seq = 0
    cache_bytes = int(args.cache_mb * 2**20)
    tests_cache = ByteBudgetCache(cache_bytes)
    while True:
        try:
            request, _ = wire.receive(pool_in)
        except wire.ChannelClosed:
            break
        if request.get("op") == "exit":
            break
        if request.get("op") == "execute":
            seq += 1
            wire.send(pool_out, execute_request(request, seq, zygote_in, zygote_out))
            continue
        if "tests" in request:
            tests_cache.put(request["tests_key"], request["tests"],
                            text_bytes(text for test in request["tests"] for text in test))
        tests = tests_cache.get(request["tests_key"])
        if tests is None:
            wire.send(pool_out, {"op": "need_tests"})
            continue
        seq += 1
        wire.send(pool_out, judge_request({**request, "tests": tests}, seq, zygote_in, zygote_out))
    with contextlib.suppress(OSError):
        wire.send(zygote_in, {"op": "exit"})
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
