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
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import json
import math
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import PurePosixPath

from codefrontier.sandbox import linux, procfs
from codefrontier.sandbox.isolation import SYSTEM_DIRS, SandboxError, covered, python_dirs
from codefrontier.sandbox.textcut import cut_stream, excerpt_bytes

WORKSPACE = "/workspace"
EXTRA_BIN = "/opt/codefrontier/bin"  # in the sandbox: `python`/`python3` where missing
SANDBOX_VENV = "/opt/codefrontier/venv"  # in the sandbox: this interpreter's virtualenv
# Above every judge uid (200_000 + a pid, and pids stay below 2**22), below 2**31.
TERMINAL_UID_BASE = 5_000_000
UIDS_PER_PROCESS = 256
WORKSPACE_INODES = 65_536  # files and folders in a workspace
TIMES_FD = 3  # where the sandbox's shell reports the command's CPU time (bash's `times`)
QUOTA_CHECK_S = 0.5  # without root: how often a running command's workspace is measured
DRAIN_S = 5.0  # after bwrap exited: the longest wait for the output to close, the init to end
SETPRIV = "/usr/bin/setpriv"  # as root: drops to the sandbox uid (inside, from the bound /usr)
BWRAP_FALLBACKS = ("/usr/bin/bwrap", "/bin/bwrap")  # where PATH lacks it
_MISSING_BWRAP = ("bubblewrap (bwrap) is not installed; the Terminal needs it: "
                  "apt-get install bubblewrap (Debian/Ubuntu package 'bubblewrap')")


@dataclass(frozen=True)
class CommandLimits:
    # the episode's limits (the agentic setting's AgenticLimits hold their defaults)
    cpu_s: float  # per command: RLIMIT_CPU of each of its processes
    wall_s: float  # per command, then every process of the command is killed
    workspace_mb: int  # the whole workspace (and each of the private /tmp, /dev/shm)
    output_chars: int  # observation cut to head and tail (textcut.head_tail)
    # the sandbox's own
    memory_mb: int = 1024  # address space per process
    file_mb: int = 16  # largest file a command may write (RLIMIT_FSIZE)
    processes: int = 64  # RLIMIT_NPROC (under the sandbox uid)


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


# ------------------------------------------------------------------ uids


_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()


def _allocate_uid() -> int:
    """A uid no other live Terminal (of any process) uses: per process a block of
    UIDS_PER_PROCESS uids at TERMINAL_UID_BASE + pid × UIDS_PER_PROCESS."""
    base = TERMINAL_UID_BASE + (os.getpid() % 2**22) * UIDS_PER_PROCESS
    with _uid_lock:
        for offset in range(UIDS_PER_PROCESS):
            if base + offset not in _uids_in_use:
                _uids_in_use.add(base + offset)
                return base + offset
    raise RuntimeError(f"more than {UIDS_PER_PROCESS} Terminals open in this process")


def _release_uid(uid: int | None) -> None:
    with _uid_lock:
        _uids_in_use.discard(uid)


# ------------------------------------------------------------------ paths


def _relative_parts(path: str) -> tuple[str, ...]:
    """The components of a workspace-relative path; ValueError for absolute paths or '..'."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\0" in path:
        raise ValueError(f"workspace paths must be relative without '..': {path!r}")
    parts = tuple(p for p in pure.parts if p != ".")
    if not parts:
        raise ValueError(f"not a file path: {path!r}")
    return parts


_RESOLVE_NO_MAGICLINKS, _RESOLVE_BENEATH = 0x02, 0x08
_SYS_OPENAT2 = 437  # the same number on every architecture


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)


def _open_beneath(root_fd: int, parts: tuple[str, ...]) -> int:
    """Open a file below `root_fd` for reading, following symlinks only while they stay
    beneath it (openat2 RESOLVE_BENEATH); where openat2 is missing, no symlink at all."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    how = _OpenHow(flags, 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
    fd = _libc.syscall(ctypes.c_long(_SYS_OPENAT2), ctypes.c_int(root_fd),
                       "/".join(parts).encode(), ctypes.byref(how), ctypes.c_size_t(24))
    if fd >= 0:
        return fd
    error = ctypes.get_errno()
    if error != errno.ENOSYS:
        raise OSError(error, os.strerror(error))
    return _open_without_symlinks(root_fd, parts, flags)


def _open_without_symlinks(root_fd: int, parts: tuple[str, ...], flags: int) -> int:
    current = os.dup(root_fd)
    try:
        for folder in parts[:-1]:
            following = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                                | os.O_CLOEXEC, dir_fd=current)
            os.close(current)
            current = following
        return os.open(parts[-1], flags | os.O_NOFOLLOW, dir_fd=current)
    finally:
        os.close(current)


def _usage(folder: str) -> tuple[int, int]:
    """Bytes on disk and entries below `folder` (never following symlinks). A folder a
    command made unreadable is the caller's own (same uid): it is opened up to count it."""
    used, entries, stack, opened_up = 0, 0, [folder], set()
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                for entry in listing:
                    entries += 1
                    with contextlib.suppress(OSError):
                        info = entry.stat(follow_symlinks=False)
                        used += info.st_blocks * 512
                        if stat.S_ISDIR(info.st_mode):
                            stack.append(entry.path)
        except PermissionError:
            if current not in opened_up:
                opened_up.add(current)
                with contextlib.suppress(OSError):
                    os.chmod(current, 0o700)
                    stack.append(current)
        except OSError:
            continue
    return used, entries


def _remove_tree(folder: str) -> None:
    def make_writable_and_retry(function, path, _):
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)

    shutil.rmtree(folder, onerror=make_writable_and_retry)


# ------------------------------------------------------------------ output


class _HeadTailBuffer:
    """Keeps the first and the last `keep` bytes of a stream and counts the rest."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > 2 * self.keep:
            del self.tail[:len(self.tail) - self.keep]

    def text(self, limit: int) -> tuple[str, bool]:
        if self.size <= 2 * self.keep:
            return cut_stream(bytes(self.head + self.tail), b"", self.size, limit)
        return cut_stream(bytes(self.head), bytes(self.tail[-self.keep:]), self.size, limit)


@dataclass
class _Watched:
    output: _HeadTailBuffer
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


# ------------------------------------------------------------------ the sandbox


def _read_available(fd: int, limit: int = 4096) -> bytes:
    """What the pipe holds once its writers are gone (never blocks past a moment)."""
    data = b""
    while len(data) < limit and select.select([fd], [], [], 0.5)[0]:
        chunk = os.read(fd, limit - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _bwrap_path() -> str:
    found = shutil.which("bwrap") or next(
        (p for p in BWRAP_FALLBACKS if os.access(p, os.X_OK)), None)
    if found is None:
        raise SandboxError(_MISSING_BWRAP)
    return found


def _mirror_system_dirs() -> list[str]:
    """bwrap arguments that show the system folders read-only, symlinks as symlinks."""
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


@functools.cache
def _python_mounts() -> tuple[tuple[str, ...], str]:
    """bwrap arguments that show this interpreter inside the sandbox, and the PATH entry
    where `python` and `python3` are found.

    The base installation is shown read-only at its own paths (the interpreter finds its
    standard library there; parent folders are made traversable). A virtualenv, usually
    inside the checkout, is shown at SANDBOX_VENV instead of its own path: what a
    command sees (PATH, tracebacks through site-packages) is then the same wherever the
    project is checked out. Names its bin folder lacks (Debian's /usr/bin has no
    `python`) are symlinks in EXTRA_BIN. Must follow the sandbox's own /tmp: a folder
    under /tmp or /var/tmp is bound into the private tmpfs, not hidden by it."""
    args: list[str] = []
    bound = [p for p in SYSTEM_DIRS if os.path.isdir(p)]
    made: set[str] = set()
    venv = os.path.realpath(sys.prefix) if sys.prefix != sys.base_prefix else None
    for folder in python_dirs():
        if covered(folder, bound) or (venv and covered(os.path.realpath(folder), [venv])):
            continue
        args += _make_parents(folder, bound, made)
        args += ["--ro-bind", folder, folder]
        bound.append(folder)
    if venv is not None:
        args += _make_parents(SANDBOX_VENV, bound, made)
        args += ["--ro-bind", venv, SANDBOX_VENV]
        bin_dir = f"{SANDBOX_VENV}/bin"
        present = [n for n in ("python", "python3") if os.path.exists(f"{venv}/bin/{n}")]
        if not present:
            raise SandboxError(f"the agentic terminal's sandbox: the virtualenv {venv} has "
                               f"neither bin/python nor bin/python3")
        target = f"{bin_dir}/{present[0]}"
    else:
        bin_dir, present, target = EXTRA_BIN, [], os.path.realpath(sys.executable)
    missing = [name for name in ("python", "python3") if name not in present]
    if not missing:
        return tuple(args), bin_dir
    args += [*_make_parents(EXTRA_BIN, bound, made), "--dir", EXTRA_BIN]
    for name in missing:
        args += ["--symlink", target, f"{EXTRA_BIN}/{name}"]
    return tuple(args), bin_dir if bin_dir == EXTRA_BIN else f"{bin_dir}:{EXTRA_BIN}"


def _make_parents(folder: str, bound: list[str], made: set[str]) -> list[str]:
    """bwrap arguments that create the parents of `folder` not yet there (traversable)."""
    args = []
    for parent in [str(p) for p in reversed(PurePosixPath(folder).parents) if str(p) != "/"]:
        if parent not in made and not covered(parent, bound):
            args += ["--perms", "0755", "--dir", parent]
            made.add(parent)
    return args


def _limits_wrapper(limits: CommandLimits, times_fd: int) -> str:
    """The shell that sets the command's limits, runs it, and reports the CPU time of
    what it waited for on `times_fd` (the pid namespace's init does not pass its
    children's CPU time on to bwrap). The command does not inherit that fd, and the
    wrapper's own notices ("line 2: Killed ...") go nowhere.

    The limits are hard, so the command cannot raise them; CPU gets SIGXCPU at the soft
    limit, SIGKILL a second later."""
    cpu = max(1, math.ceil(limits.cpu_s))
    return (f"ulimit -t {cpu + 1} -v {limits.memory_mb * 1024} -f {limits.file_mb * 1024} "
            f"-u {limits.processes} -c 0 && ulimit -S -t {cpu} || exit 126\n"
            f"exec 4>&2 2>/dev/null\n"
            f"/bin/bash -c \"$1\" 2>&4 4>&- {times_fd}>&-\nstatus=$?\n"
            f"times >&{times_fd}\nexit $status\n")


def _children_cpu_s(report: bytes) -> float | None:
    """The children's user + system seconds from the output of bash's `times`
    (second line: "0m1.250s 0m0.031s")."""
    try:
        user, system = report.decode().splitlines()[1].split()
        return sum(int(t.split("m")[0]) * 60 + float(t.split("m")[1].rstrip("s"))
                   for t in (user, system))
    except (UnicodeDecodeError, IndexError, ValueError):
        return None


# The interpreter's probe: each name must start and import the standard library.
_PYTHON_PROBE_FAILED = 97
_PYTHON_PROBE = (
    'for name in python python3; do found=$(command -v "$name") || '
    '{ echo "no $name on PATH ($PATH)"; exit 97; }; '
    '"$name" -c "import json, sys" || { echo "$found does not start"; exit 97; }; done')
_python_checked = False  # a Terminal of this process has run the probe


class Terminal:
    """A workspace of files and a shell to run commands in it, each in a fresh sandbox.

    files: the workspace's initial files, relative path → text.
    Not for concurrent use: run() calls are serialized.
    """

    def __init__(self, files: dict[str, str], limits: CommandLimits) -> None:
        for path in files:
            _relative_parts(path)
        self._as_root = os.geteuid() == 0
        bwrap = _bwrap_path()
        if self._as_root and not os.access(SETPRIV, os.X_OK):
            raise SandboxError(f"{SETPRIV} (util-linux) is needed to run commands as root")
        self.limits = limits
        self._uid = _allocate_uid() if self._as_root else None
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
            self._argv = self._sandbox_argv(bwrap)
            self._probe()
        except BaseException:
            self.close()
            raise
        self.isolation = self._describe()

    # -- set-up

    def _mount_workspace(self) -> None:
        linux.mount("tmpfs", self._workspace, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                    f"size={self.limits.workspace_mb}m,nr_inodes={WORKSPACE_INODES},"
                    f"mode=0700,uid={self._uid},gid={self._uid}")

    def _write_files(self, files: dict[str, str]) -> None:
        for path, text in files.items():
            parts = _relative_parts(path)
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

    def _sandbox_argv(self, bwrap: str) -> list[str]:
        python_mounts, python_bin = _python_mounts()
        tmp_bytes = str(self.limits.workspace_mb * 2**20)
        argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--hostname", "sandbox"]
        if not self._as_root:
            argv += ["--unshare-user", "--disable-userns"]
        argv += [*_mirror_system_dirs(),
                 "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/tmp",
                 "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/dev/shm",
                 *python_mounts,  # after /tmp: an interpreter under /tmp stays visible
                 "--bind", self._workspace, WORKSPACE, "--chdir", WORKSPACE,
                 # bwrap's own tmpfs (the root, /dev) would take unbounded writes
                 "--remount-ro", "/dev", "--remount-ro", "/",
                 "--clearenv",
                 "--setenv", "PATH", f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
                 "--setenv", "HOME", WORKSPACE, "--setenv", "LANG", "C.UTF-8",
                 "--setenv", "TERM", "dumb", "--setenv", "PYTHONUNBUFFERED", "1", "--"]
        if self._as_root:
            argv += [SETPRIV, f"--reuid={self._uid}", f"--regid={self._uid}",
                     "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                     "--no-new-privs", "--"]
        return [*argv, "/bin/bash", "-c", _limits_wrapper(self.limits, TIMES_FD), "limits"]

    def _probe(self) -> None:
        """Fail now, with bwrap's own words, where it cannot build the sandbox; the first
        Terminal of a process also checks that `python` and `python3` start inside, so
        that a missing interpreter is reported once as the sandbox's fault, never as a
        failing program."""
        global _python_checked
        check_python = not _python_checked
        result = self._run_locked(_PYTHON_PROBE if check_python else "true")
        if result.exit_code == _PYTHON_PROBE_FAILED and check_python:
            mounts, python_bin = _python_mounts()
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
            reported_cpu_s = _children_cpu_s(_read_available(run.times))
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
        output = _HeadTailBuffer(excerpt_bytes(self.limits.output_chars))
        deadline = start + self.limits.wall_s
        next_check = start + QUOTA_CHECK_S if not self._as_root else math.inf
        timed_out = exceeded = False
        cpu_at_kill, killed_at = 0.0, math.inf
        output_open = True  # a command may close it early (`exec >log 2>&1`) and go on
        ended: float | None = None  # when bwrap exited
        while True:
            now = time.monotonic()
            if ended is None and not (timed_out or exceeded):
                if now >= deadline:
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
                wait = max(0.0, min(deadline, next_check) - now)
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
        used, entries = _usage(self._workspace)
        return used > self.limits.workspace_mb * 2**20 or entries > WORKSPACE_INODES

    # -- the workspace

    def read(self, path: str, max_bytes: int = 1_000_000) -> str | None:
        """A workspace file's text (UTF-8, errors replaced; at most `max_bytes` bytes), or
        None if it is missing, not a regular file, or reached through a symlink that
        leaves the workspace."""
        try:
            parts = _relative_parts(path)
        except ValueError:
            return None
        with self._lock:
            if self._closed:
                raise RuntimeError("the Terminal is closed")
            root = os.open(self._workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                fd = _open_beneath(root, parts)
            except OSError:
                return None
            finally:
                os.close(root)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None
                return os.read(fd, max_bytes).decode("utf-8", errors="replace")
            finally:
                os.close(fd)

    def files(self) -> list[str]:
        """The workspace's regular files, relative paths, sorted."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the Terminal is closed")
            found = []
            for folder, _, names in os.walk(self._workspace):
                for name in names:
                    full = os.path.join(folder, name)
                    if stat.S_ISREG(os.lstat(full).st_mode):
                        found.append(os.path.relpath(full, self._workspace))
            return sorted(found)

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


def _clean_up(workspace: str, uid: int | None, mounted_as_root: bool) -> None:
    if mounted_as_root:
        with contextlib.suppress(OSError):
            linux.umount(workspace, linux.MNT_DETACH)
    _remove_tree(workspace)
    _release_uid(uid)


