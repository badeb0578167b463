"""A persistent, sandboxed workspace for agentic episodes: shell commands in bubblewrap.

    limits = CommandLimits(cpu_s=2, wall_s=5, workspace_mb=16, output_chars=1000)
    with Terminal({"main.py": "print(6 * 7)\\n"}, limits) as terminal:
        result = terminal.run("python main.py")   # result.output == "42\\n"

One workspace per episode, kept across commands; each command runs in a fresh
bubblewrap sandbox (`bash -c`, cwd /workspace): no network, new pid, IPC and
UTS namespaces, system folders and this Python read-only, a private /tmp, and
the workspace the only place it can write. When the command's shell exits (or
its wall limit passes) the sandbox's pid namespace ends, which kills every
process the command started, daemons included.

As root (CI), bwrap runs as root and the command runs under an unprivileged
uid of its own (setpriv), and the workspace is a tmpfs of `workspace_mb`
mounted on the host. Otherwise bwrap makes an unprivileged user namespace, the
command keeps the caller's uid, and the workspace lives on disk: its size is
checked while and after each command, and a workspace over the quota refuses
further commands. Limits are set inside the sandbox with the shell's `ulimit`
(never a preexec_fn: callers are multi-threaded trainers).

The command line and its mounts are bwrap.py's, the workspace's uid, file access and
size workspace.py's; this module runs the commands and holds each one's lifetime.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass

from codefrontier.sandbox import bwrap, linux, procfs, workspace
from codefrontier.sandbox.bwrap import TIMES_FD, CommandLimits
from codefrontier.sandbox.isolation import SandboxError
from codefrontier.sandbox.textcut import HeadTailBuffer, excerpt_bytes

__all__ = ["CommandLimits", "CommandResult", "Terminal", "WorkspaceExceeded"]

QUOTA_CHECK_S = 0.5  # without root: how often a running command's workspace is measured
# The wall limit ends commands that wait (a sleep, a blocked read); the CPU limit ends
# those that compute. On a busy host a computing command also waits, for a free core, and
# would meet the wall limit first: which limit ends it, and so what it prints, would
# follow the host's load. So the wall limit does not count the longest run-queue wait of
# any of the command's threads, up to this many wall limits more.
WAIT_CREDIT_LIMITS = 2.0
WAIT_CHECK_S = 0.5  # how often the command's run-queue waits are read
DRAIN_S = 5.0  # after bwrap exited: the longest wait for the output to close, the init to end
_python_checked = False  # a Terminal of this process has run the interpreter's probe


@dataclass(frozen=True)
class CommandResult:
    # the shell's exit status (128 + n when killed by signal n); -9 when the wall limit
    # killed the command
    exit_code: int
    output: str  # stdout and stderr interleaved, as a terminal shows them, cut
    cpu_s: float
    wall_s: float
    timed_out: bool  # the wall limit, or the CPU limit of the command's shell (SIGXCPU)
    truncated: bool  # output was cut
    workspace_exceeded: bool  # without root: the workspace grew past workspace_mb


class WorkspaceExceeded(RuntimeError):
    """The workspace outgrew its quota; the Terminal runs no more commands."""


# ------------------------------------------------------------------ a command's run


class _WallDeadline:
    """A command's wall limit, moved back by the longest run-queue wait of its threads
    (WAIT_CREDIT_LIMITS). Threads that end keep the wait last read for them."""

    def __init__(self, pid: int, start: float, wall_s: float) -> None:
        self.pid, self.start, self.wall_s = pid, start, wall_s
        self.waits: dict[int, float] = {}
        self.next_look = start + min(WAIT_CHECK_S, wall_s)

    def passed(self, now: float) -> bool:
        if now < self.next_look:
            return False
        self.waits.update(procfs.run_queue_waits_s(self.pid))
        credit = min(max(self.waits.values(), default=0.0), WAIT_CREDIT_LIMITS * self.wall_s)
        end = self.start + self.wall_s + credit
        self.next_look = min(end, now + WAIT_CHECK_S)
        return now >= end


@dataclass
class _Watched:
    output: HeadTailBuffer
    timed_out: bool  # the wall limit killed the sandbox
    exceeded: bool  # the workspace quota killed it
    cpu_at_kill: float  # the CPU seconds of its processes just before


def _pipe_above(lowest: int) -> tuple[int, int]:
    """A pipe whose ends are numbered `lowest` or more (out of the way of fds 0-9)."""
    read_end, write_end = os.pipe()
    moved = (fcntl.fcntl(read_end, fcntl.F_DUPFD_CLOEXEC, lowest),
             fcntl.fcntl(write_end, fcntl.F_DUPFD_CLOEXEC, lowest))
    os.close(read_end)
    os.close(write_end)
    return moved


class _CommandRun:
    """One command's bwrap process and the pipes from it: the output (stdout and stderr),
    bwrap's --info-fd (the host pid of the sandbox's init) and the shell's CPU times."""

    def __init__(self, argv: list[str], command: str) -> None:
        self.times, times_write = _pipe_above(10)
        self.info, info_write = _pipe_above(10)
        # A tiny bash moves the times pipe to TIMES_FD (Popen's pass_fds keeps fd numbers;
        # no preexec_fn may run in a threaded caller; dash takes no fd past 9).
        move = f"exec {TIMES_FD}>&{times_write} {times_write}>&-; exec \"$@\""
        try:
            self.process = subprocess.Popen(
                ["/bin/bash", "-c", move, "bash", argv[0], "--info-fd", str(info_write),
                 *argv[1:], command],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                close_fds=True, pass_fds=(times_write, info_write),
                env={"PATH": "/usr/bin:/bin"})
        except BaseException:
            os.close(self.times)
            os.close(self.info)
            raise
        finally:
            os.close(times_write)
            os.close(info_write)
        self.output = self.process.stdout.fileno()
        self.pidfd = os.pidfd_open(self.process.pid)
        self.init_pid: int | None = None
        self.init_pidfd: int | None = None
        self._info = b""

    def take_info(self) -> None:
        """Read what bwrap wrote to --info-fd; at its end, hold the init by a pidfd."""
        chunk = os.read(self.info, 4096)
        self._info += chunk
        if chunk:
            return
        os.close(self.info)
        self.info = -1
        with contextlib.suppress(ValueError, KeyError, TypeError):
            self.init_pid = int(json.loads(self._info)["child-pid"])
        if self.init_pid is not None:
            with contextlib.suppress(OSError):  # gone already
                self.init_pidfd = os.pidfd_open(self.init_pid)

    def kill(self) -> None:
        """SIGKILL the sandbox's init: the kernel then kills everything in its pid
        namespace. (Killing bwrap instead would orphan the init.)"""
        if self.init_pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.init_pidfd, signal.SIGKILL)
            return
        inits = procfs.children(self.process.pid)
        for pid in inits:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if not inits:  # not cloned yet
            with contextlib.suppress(OSError):
                self.process.kill()

    def wait_for_namespace(self) -> None:
        """Return once every process of the sandbox is gone. bwrap exits as soon as its
        init reports the command's end, while the kernel may still be killing the
        namespace's other processes; the init's pidfd turns readable only after."""
        while self.info >= 0 and select.select([self.info], [], [], DRAIN_S)[0]:
            self.take_info()
        if self.init_pidfd is None:
            return
        if not select.select([self.init_pidfd], [], [], DRAIN_S)[0]:
            self.kill()
            select.select([self.init_pidfd], [], [], DRAIN_S)

    def close(self) -> None:
        for fd in (self.times, self.info, self.pidfd, self.init_pidfd):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.process.stdout.close()


def _read_available(fd: int, limit: int = 4096) -> bytes:
    """What the pipe holds once its writers are gone (never blocks past a moment)."""
    data = b""
    while len(data) < limit and select.select([fd], [], [], 0.5)[0]:
        chunk = os.read(fd, limit - len(data))
        if not chunk:
            break
        data += chunk
    return data


class Terminal:
    """A workspace of files and a shell to run commands in it, each in a fresh sandbox.

    files: the workspace's initial files, relative path → text.
    Not for concurrent use: run() calls are serialized.
    """

    def __init__(self, files: dict[str, str], limits: CommandLimits) -> None:
        for path in files:
            workspace.relative_parts(path)
        self._as_root = os.geteuid() == 0
        bwrap_path = bwrap.bwrap_path()
        if self._as_root and not os.access(bwrap.SETPRIV, os.X_OK):
            raise SandboxError(f"{bwrap.SETPRIV} (util-linux) is needed to run commands as root")
        self.limits = limits
        self._uid = workspace.allocate_uid() if self._as_root else None
        self.uid = self._uid  # what commands run as on the host; None: the caller's uid
        self._workspace = tempfile.mkdtemp(prefix="codefrontier-terminal-")
        self._exceeded = False
        self._closed = False
        self._lock = threading.Lock()
        self._run: _CommandRun | None = None  # the command in progress
        self._finalizer = weakref.finalize(self, _clean_up, self._workspace, self._uid,
                                           self._as_root)
        try:
            if self._as_root:
                self._mount_workspace()
            self._write_files(files)
            self._argv = bwrap.sandbox_argv(bwrap_path, self._workspace, limits, self._uid)
            self._probe()
        except BaseException:
            self.close()
            raise
        self.isolation = self._describe()

    # -- set-up

    def _mount_workspace(self) -> None:
        linux.mount("tmpfs", self._workspace, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                    f"size={self.limits.workspace_mb}m,nr_inodes={workspace.WORKSPACE_INODES},"
                    f"mode=0700,uid={self._uid},gid={self._uid}")

    def _write_files(self, files: dict[str, str]) -> None:
        for path, text in files.items():
            parts = workspace.relative_parts(path)
            folder = self._workspace
            for part in parts[:-1]:
                folder = os.path.join(folder, part)
                if not os.path.isdir(folder):
                    os.mkdir(folder, 0o755)
                    self._give_to_sandbox(folder)
            target = os.path.join(folder, parts[-1])
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
            self._give_to_sandbox(target)
        if not self._as_root and self._over_quota():
            raise ValueError(f"the files exceed the workspace quota of "
                             f"{self.limits.workspace_mb} MiB")

    def _give_to_sandbox(self, path: str) -> None:
        if self._uid is not None:
            os.chown(path, self._uid, self._uid, follow_symlinks=False)

    def _probe(self) -> None:
        """Fail now, with bwrap's own words, where it cannot build the sandbox; the first
        Terminal of a process also checks that `python` and `python3` start inside, so
        that a missing interpreter is reported once as the sandbox's fault, never as a
        failing program."""
        global _python_checked
        check_python = not _python_checked
        result = self._run_locked(bwrap.PYTHON_PROBE if check_python else "true")
        if result.exit_code == bwrap.PYTHON_PROBE_FAILED and check_python:
            mounts, python_bin = bwrap.python_mounts()
            shown = " ".join(mounts) or "(none: the system folders hold it)"
            raise SandboxError(
                f"the agentic terminal's sandbox cannot start Python: {result.output.strip()} "
                f"(PATH starts with {python_bin}; interpreter {sys.executable}, prefix "
                f"{sys.prefix}; bwrap arguments that show it: {shown})")
        if result.exit_code != 0:
            raise SandboxError(f"bubblewrap could not start a sandbox here "
                               f"(exit {result.exit_code}): {result.output.strip()}")
        _python_checked = True

    def _describe(self) -> str:
        if self._as_root:
            return (f"bwrap, uid {self._uid}, tmpfs workspace {self.limits.workspace_mb} MiB, "
                    f"no network, new pid/ipc/uts namespaces")
        return (f"bwrap (unprivileged user namespace), caller's uid {os.getuid()}, "
                f"disk workspace with a {self.limits.workspace_mb} MiB quota, no network, "
                f"new pid/ipc/uts namespaces")

    # -- commands

    def run(self, command: str) -> CommandResult:
        """Run `bash -c command` in /workspace, in a fresh sandbox, within the limits."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the Terminal is closed")
            if self._exceeded:
                raise WorkspaceExceeded(f"the workspace outgrew {self.limits.workspace_mb} "
                                        f"MiB; no more commands")
            return self._run_locked(command)

    def _run_locked(self, command: str) -> CommandResult:
        start = time.monotonic()
        run = _CommandRun(self._argv, command)
        self._run = run
        try:
            watched = self._watch(run, start)
            run.wait_for_namespace()
            _, status, usage = os.wait4(run.process.pid, 0)
            run.process.returncode = os.waitstatus_to_exitcode(status)
            reported_cpu_s = bwrap.children_cpu_s(_read_available(run.times))
        finally:
            self._run = None
            run.close()
        wall_s = time.monotonic() - start
        exceeded = watched.exceeded or (not self._as_root and self._over_quota())
        self._exceeded = self._exceeded or exceeded
        text, truncated = watched.output.text(self.limits.output_chars)
        killed = watched.timed_out or watched.exceeded
        exit_code = -signal.SIGKILL if killed else run.process.returncode
        cpu_s = watched.cpu_at_kill if killed else reported_cpu_s
        return CommandResult(
            exit_code=exit_code, output=text,
            cpu_s=cpu_s if cpu_s is not None else usage.ru_utime + usage.ru_stime,
            wall_s=wall_s, timed_out=watched.timed_out or exit_code == 128 + signal.SIGXCPU,
            truncated=truncated, workspace_exceeded=exceeded)

    def _watch(self, run: _CommandRun, start: float) -> _Watched:
        """Collect the output until bwrap exits and the output closes; kill the sandbox at
        the wall limit or (without root) when the workspace outgrows its quota."""
        output = HeadTailBuffer(excerpt_bytes(self.limits.output_chars))
        deadline = _WallDeadline(run.process.pid, start, self.limits.wall_s)
        next_check = start + QUOTA_CHECK_S if not self._as_root else math.inf
        timed_out = exceeded = False
        cpu_at_kill, killed_at = 0.0, math.inf
        output_open = True  # a command may close it early (`exec >log 2>&1`) and go on
        ended: float | None = None  # when bwrap exited
        while True:
            now = time.monotonic()
            if ended is None and not (timed_out or exceeded):
                if deadline.passed(now):
                    timed_out = True
                elif now >= next_check:
                    next_check = now + QUOTA_CHECK_S
                    exceeded = self._over_quota()
                if timed_out or exceeded:
                    cpu_at_kill, killed_at = procfs.tree_cpu_s(run.process.pid), now
                    run.kill()
            if ended is None and now > killed_at + DRAIN_S:
                run.process.kill()  # the sandbox did not end: the last resort
            if ended is not None and (not output_open or now >= ended + DRAIN_S):
                break
            if ended is not None:
                wait = ended + DRAIN_S - now
            elif timed_out or exceeded:
                wait = 1.0  # killed: the pidfd reports the end
            else:
                wait = max(0.0, min(deadline.next_look, next_check) - now)
            watched = [fd for fd, on in ((run.output, output_open), (run.pidfd, ended is None),
                                         (run.info, run.info >= 0)) if on]
            readable, _, _ = select.select(watched, [], [], wait)
            if run.info in readable:
                run.take_info()
            if run.output in readable:
                chunk = os.read(run.output, 1 << 16)
                output.add(chunk)
                output_open = bool(chunk)
            if run.pidfd in readable:
                ended = time.monotonic()
        return _Watched(output, timed_out, exceeded, cpu_at_kill)

    def _over_quota(self) -> bool:
        used, entries = workspace.usage(self._workspace)
        return used > self.limits.workspace_mb * 2**20 or entries > workspace.WORKSPACE_INODES

    # -- the workspace

    def read(self, path: str, max_bytes: int = 1_000_000) -> str | None:
        """A workspace file's text (UTF-8, errors replaced; at most `max_bytes` bytes), or
        None if it is missing, not a regular file, or reached through a symlink that
        leaves the workspace."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the Terminal is closed")
            return workspace.read_text(self._workspace, path, max_bytes)

    def files(self) -> list[str]:
        """The workspace's regular files, relative paths, sorted."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the Terminal is closed")
            return workspace.regular_files(self._workspace)

    # -- the end

    def close(self) -> None:
        """Kill a command still running, remove the workspace (unmounting it as root)."""
        run = self._run
        if run is not None:
            run.kill()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._finalizer()

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def workspace(self) -> str:
        """The workspace's folder on the host (shown as /workspace inside)."""
        return self._workspace


def _clean_up(folder: str, uid: int | None, mounted_as_root: bool) -> None:
    if mounted_as_root:
        with contextlib.suppress(OSError):
            linux.umount(folder, linux.MNT_DETACH)
    workspace.remove_tree(folder)
    workspace.release_uid(uid)


