"""Setting up the sandbox a judge worker runs untrusted programs in.

Three levels, strongest first; a worker takes the strongest the machine allows
(capped by `max_level`) and reports it:

* ``namespaces``: running as root. New pid, mount, network, IPC and UTS
  namespaces; a private root file system that shows only the system and the
  Python installation, read-only, with fresh tmpfs on /tmp, /var/tmp, /dev/shm
  and the scratch folder; programs run under a per-worker unprivileged uid.
* ``userns``: not root, but unprivileged user namespaces work (the usual case
  on a Slurm node). The same namespaces and private root; programs run with no
  capabilities but under the caller's own uid, mapped to root inside, so a
  hostile program can kill its own sample's process (that sample gets RE).
* ``rlimits``: no namespaces. Resource limits, a new session, a private
  scratch folder, and cleanup of every descendant through a child subreaper;
  no file-system or network isolation.

In every level the kernel's OOM killer is told to pick sandboxed programs first
(oom_score_adj 1000), so a solution's OOM never takes down the caller.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import sysconfig
from dataclasses import asdict, dataclass

from codefrontier.sandbox import linux

LEVELS = ("namespaces", "userns", "rlimits")
SCRATCH = "/sandbox"
PRIVATE_TMPFS = ("/tmp", "/var/tmp", "/dev/shm", SCRATCH)
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_NAMESPACES = (
    linux.CLONE_NEWNS | linux.CLONE_NEWPID | linux.CLONE_NEWNET | linux.CLONE_NEWIPC
    | linux.CLONE_NEWUTS
)


@dataclass(frozen=True)
class Isolation:
    """What the sandbox of one worker actually provides (reported in outputs)."""

    level: str
    uid_drop: bool
    private_fs: bool
    network: bool  # True when programs can reach no network
    pid_namespace: bool
    detail: str = ""

    def describe(self) -> str:
        parts = [self.level]
        parts.append("unprivileged uid" if self.uid_drop else "caller's uid")
        parts.append("private root fs" if self.private_fs else "shared fs")
        parts.append("no network" if self.network else "network reachable")
        if self.detail:
            parts.append(self.detail)
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return asdict(self)


def enter_namespaces(max_level: str = "namespaces") -> Isolation:
    """Unshare the worker's namespaces at the strongest level allowed.

    Must run in a single-threaded process; the namespaces apply to the process
    itself (mount, net, ipc, uts) and to its next child (pid), which becomes
    the namespace's init.
    """
    if max_level not in LEVELS:
        raise ValueError(f"isolation level {max_level!r} is not one of {LEVELS}")
    allowed = LEVELS[LEVELS.index(max_level):]
    errors = []
    if "namespaces" in allowed and os.geteuid() == 0:
        try:
            linux.unshare(_NAMESPACES)
            return Isolation("namespaces", uid_drop=True, private_fs=True, network=True,
                             pid_namespace=True)
        except OSError as error:
            errors.append(f"namespaces: {error}")
    if "userns" in allowed:
        uid, gid = os.geteuid(), os.getegid()
        try:
            linux.unshare(linux.CLONE_NEWUSER | _NAMESPACES)
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"0 {uid} 1")
            _write("/proc/self/gid_map", f"0 {gid} 1")
            return Isolation("userns", uid_drop=False, private_fs=True, network=True,
                             pid_namespace=True)
        except OSError as error:
            errors.append(f"userns: {error}")
    return Isolation("rlimits", uid_drop=os.geteuid() == 0, private_fs=False, network=False,
                     pid_namespace=False, detail="; ".join(errors))


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def python_dirs() -> list[str]:
    """The folders outside the system's that the interpreter, its shared library and its
    standard library live in, as named and as the file system resolves them (a prefix
    or a stdlib reached through a symlink)."""
    paths = sysconfig.get_paths()
    dirs = {os.path.dirname(os.path.realpath(sys.executable))}
    for folder in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                   paths["stdlib"], paths["platstdlib"], sysconfig.get_config_var("LIBDIR")):
        if folder:
            dirs |= {os.path.abspath(folder), os.path.realpath(folder)}
    dirs = {d for d in dirs if os.path.isdir(d) and not covered(d, SYSTEM_DIRS)}
    # Nested folders are covered by their parents' bind mounts.
    return sorted(d for d in dirs if not covered(d, [p for p in dirs if p != d]))


def covered(path: str, by) -> bool:
    """Whether `path` is one of the folders `by` or lies below one (lexically)."""
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in by)


class SandboxError(RuntimeError):
    """A sandbox cannot be built, or cannot show what it must (bwrap, Python): a fault of
    the machine or the installation, never of a program that runs in it."""


def check_python_shown(folders: list[str]) -> None:
    """Raise SandboxError naming the first of Python's `folders` (and its standard library)
    the sandbox's root does not show."""
    for folder in folders:
        if not os.path.isdir(folder):
            raise SandboxError(f"the judge's sandbox does not show the Python folder {folder} "
                               f"(interpreter {sys.executable})")
    stdlib = sysconfig.get_paths()["stdlib"]
    if not os.path.exists(os.path.join(stdlib, "os.py")):
        raise SandboxError(f"the judge's sandbox does not show the standard library {stdlib}")


def _bind_readonly(source: str, target: str) -> None:
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    locked = 0
    flags = os.statvfs(source).f_flag
    # In a user namespace, flags the outer mount already has are locked and must be kept.
    for st_flag, ms_flag in ((os.ST_NOSUID, linux.MS_NOSUID), (os.ST_NODEV, linux.MS_NODEV),
                             (os.ST_NOEXEC, linux.MS_NOEXEC)):
        if flags & st_flag:
            locked |= ms_flag
    linux.mount("none", target, None,
                linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID | locked)


def _mount_tmpfs(target: str, size_mb: int, mode: str = "1777") -> None:
    os.makedirs(target, exist_ok=True)
    linux.mount("tmpfs", target, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                f"size={size_mb}m,nr_inodes=4096,mode={mode}")


def _replicate(path: str, root: str, opened: dict[str, int]) -> None:
    """Make `path` exist inside `root`: a folder as a read-only bind of the descriptor
    `opened` holds for it, a symlink as a symlink."""
    inside = root + path
    if path in opened:
        os.makedirs(inside, mode=0o755, exist_ok=True)
        # the descriptor, not the path: the path may lie under a folder mounted over since
        _bind_readonly(f"/proc/self/fd/{opened[path]}", inside)
    elif os.path.islink(path):
        os.makedirs(os.path.dirname(inside), mode=0o755, exist_ok=True)
        if not os.path.lexists(inside):
            os.symlink(os.readlink(path), inside)


def _make_devices(root: str) -> None:
    """A /dev of its own under `root`: the harmless devices and the fd links."""
    os.makedirs(root + "/dev", exist_ok=True)
    linux.mount("tmpfs", root + "/dev", "tmpfs", linux.MS_NOSUID, "size=1m,mode=755")
    for name in _DEVICES:
        open(f"{root}/dev/{name}", "w").close()
        linux.mount(f"/dev/{name}", f"{root}/dev/{name}", None, linux.MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")


def build_private_root(tmpfs_mb: int) -> list[str]:
    """Pivot into a fresh root: system folders and Python read-only, private tmpfs, new /proc.

    Runs in the worker's init process, inside new mount and pid namespaces.
    Nothing mounted here is visible outside, and everything vanishes with the
    namespace. The folders to show are opened before anything is mounted, and Python's
    are bound after the private tmpfs: an interpreter under /tmp or /var/tmp is then
    shown inside them instead of hidden by them. Returns Python's folders.
    """
    linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
    python = python_dirs()  # before /tmp is mounted over: it may hide some of them
    shown = (*SYSTEM_DIRS, *python)
    opened = {path: os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
              for path in shown if os.path.isdir(path) and not os.path.islink(path)}
    root = "/tmp"  # any existing folder will do as the mount point of the new root
    try:
        linux.mount("tmpfs", root, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                    "size=16m,mode=755")
        for path in SYSTEM_DIRS:
            _replicate(path, root, opened)
        _make_devices(root)
        for path in PRIVATE_TMPFS:
            _mount_tmpfs(root + path, tmpfs_mb)
        for path in python:
            _replicate(path, root, opened)
    finally:
        for fd in opened.values():
            os.close(fd)
    os.makedirs(root + "/proc", exist_ok=True)
    linux.mount("proc", root + "/proc", "proc",
                linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC, "hidepid=2")
    os.makedirs(root + "/.old", exist_ok=True)
    linux.pivot_root(root, root + "/.old")
    os.chdir("/")
    linux.umount("/.old", linux.MNT_DETACH)
    os.rmdir("/.old")
    linux.mount("none", "/", None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY
                | linux.MS_NOSUID | linux.MS_NODEV)
    socket.sethostname("sandbox")
    return python


def files_in_use(path: str) -> int:
    """Inodes in use on the file system holding `path`: a cheap "was anything written"."""
    stats = os.statvfs(path)
    return stats.f_files - stats.f_ffree


def clear_folder(path: str, keep: tuple[str, ...] = ()) -> None:
    """Remove everything inside `path` (a private tmpfs or scratch folder) but the folders
    in `keep` (Python bound into it) and the folders on the way to them."""
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return
    for entry in entries:
        if entry.path in keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            if any(kept.startswith(entry.path + "/") for kept in keep):
                clear_folder(entry.path, keep)
            else:
                shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
