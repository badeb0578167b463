"""The agentic terminal's workspace on the host: the uid its commands run as, file
access that never leaves it, and its size.

A Terminal (terminal.py) keeps one workspace per episode; as root, each has a uid of
its own (a block of uids per process, above every judge uid). Files are read with
openat2's RESOLVE_BENEATH, so that a symlink a command made cannot lead out of it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import threading
from pathlib import PurePosixPath

# Above every judge uid (200_000 + a pid, and pids stay below 2**22), below 2**31.
TERMINAL_UID_BASE = 5_000_000
UIDS_PER_PROCESS = 256
WORKSPACE_INODES = 65_536  # files and folders in a workspace


_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()


def allocate_uid() -> int:
    """A uid no other live Terminal (of any process) uses: per process a block of
    UIDS_PER_PROCESS uids at TERMINAL_UID_BASE + pid × UIDS_PER_PROCESS."""
    base = TERMINAL_UID_BASE + (os.getpid() % 2**22) * UIDS_PER_PROCESS
    with _uid_lock:
        for offset in range(UIDS_PER_PROCESS):
            if base + offset not in _uids_in_use:
                _uids_in_use.add(base + offset)
                return base + offset
    raise RuntimeError(f"more than {UIDS_PER_PROCESS} Terminals open in this process")


def release_uid(uid: int | None) -> None:
    with _uid_lock:
        _uids_in_use.discard(uid)


def relative_parts(path: str) -> tuple[str, ...]:
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


def usage(folder: str) -> tuple[int, int]:
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


def remove_tree(folder: str) -> None:
    def make_writable_and_retry(function, path, _):
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)

    shutil.rmtree(folder, onerror=make_writable_and_retry)


def read_text(workspace: str, path: str, max_bytes: int) -> str | None:
    """A workspace file's text (UTF-8, errors replaced; at most `max_bytes` bytes), or
    None if it is missing, not a regular file, or reached through a symlink that leaves
    the workspace."""
    try:
        parts = relative_parts(path)
    except ValueError:
        return None
    root = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
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


def regular_files(workspace: str) -> list[str]:
    """The workspace's regular files, relative paths, sorted."""
    found = []
    for folder, _, names in os.walk(workspace):
        for name in names:
            full = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(full).st_mode):
                found.append(os.path.relpath(full, workspace))
    return sorted(found)
