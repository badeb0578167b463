"""The bubblewrap command line of the agentic terminal's sandbox: its mounts (the
system folders and this interpreter, read-only; a private /tmp; the workspace) and the
shell that sets a command's limits and reports its CPU time.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import PurePosixPath

from codefrontier.sandbox.isolation import SYSTEM_DIRS, SandboxError, covered, python_dirs

WORKSPACE = "/workspace"  # the workspace, inside the sandbox
EXTRA_BIN = "/opt/codefrontier/bin"  # in the sandbox: `python`/`python3` where missing
SANDBOX_VENV = "/opt/codefrontier/venv"  # in the sandbox: this interpreter's virtualenv
TIMES_FD = 3  # where the sandbox's shell reports the command's CPU time (bash's `times`)
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


def bwrap_path() -> str:
    found = shutil.which("bwrap") or next(
        (p for p in BWRAP_FALLBACKS if os.access(p, os.X_OK)), None)
    if found is None:
        raise SandboxError(_MISSING_BWRAP)
    return found


def mirror_system_dirs() -> list[str]:
    """bwrap arguments that show the system folders read-only, symlinks as symlinks."""
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


@functools.cache
def python_mounts() -> tuple[tuple[str, ...], str]:
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


def limits_wrapper(limits: CommandLimits, times_fd: int) -> str:
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


def children_cpu_s(report: bytes) -> float | None:
    """The children's user + system seconds from the output of bash's `times`
    (second line: "0m1.250s 0m0.031s")."""
    try:
        user, system = report.decode().splitlines()[1].split()
        return sum(int(t.split("m")[0]) * 60 + float(t.split("m")[1].rstrip("s"))
                   for t in (user, system))
    except (UnicodeDecodeError, IndexError, ValueError):
        return None


# The interpreter's probe: each name must start and import the standard library.
PYTHON_PROBE_FAILED = 97
PYTHON_PROBE = (
    'for name in python python3; do found=$(command -v "$name") || '
    '{ echo "no $name on PATH ($PATH)"; exit 97; }; '
    '"$name" -c "import json, sys" || { echo "$found does not start"; exit 97; }; done')


def sandbox_argv(bwrap: str, workspace: str, limits: CommandLimits,
                 uid: int | None) -> list[str]:
    """The bwrap command that runs one command (its last argument) in a fresh sandbox
    over `workspace`; `uid`: as root, the uid the command runs as (None: bwrap makes an
    unprivileged user namespace, and the command keeps the caller's uid)."""
    mounts, python_bin = python_mounts()
    tmp_bytes = str(limits.workspace_mb * 2**20)
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "sandbox"]
    if uid is None:
        argv += ["--unshare-user", "--disable-userns"]
    argv += [*mirror_system_dirs(),
             "--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/tmp",
             "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/dev/shm",
             *mounts,  # after /tmp: an interpreter under /tmp stays visible
             "--bind", workspace, WORKSPACE, "--chdir", WORKSPACE,
             # bwrap's own tmpfs (the root, /dev) would take unbounded writes
             "--remount-ro", "/dev", "--remount-ro", "/",
             "--clearenv",
             "--setenv", "PATH", f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
             "--setenv", "HOME", WORKSPACE, "--setenv", "LANG", "C.UTF-8",
             "--setenv", "TERM", "dumb", "--setenv", "PYTHONUNBUFFERED", "1", "--"]
    if uid is not None:
        argv += [SETPRIV, f"--reuid={uid}", f"--regid={uid}",
                 "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                 "--no-new-privs", "--"]
    return [*argv, "/bin/bash", "-c", limits_wrapper(limits, TIMES_FD), "limits"]
