"""Content hashes of files and checkpoint folders, with a stat-keyed cache.

Hashing a 32B checkpoint (64 GB) takes about 45 s at sha256's 1.5 GB/s, and
every merge, sampling job and audit would pay it again for the same parents.
Like git's index and DVC, the cache keys a file's digest by its path, size,
inode and modification time: a file rewritten in any way that changes one of
them is hashed again. `codefrontier audit` bypasses the cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger("codefrontier.provenance")

BLOCK = 1 << 24


def cache_path() -> Path:
    root = os.environ.get("CODEFRONTIER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "codefrontier")
    return Path(root) / "sha256.sqlite"


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb", buffering=0) as handle:
        buffer = bytearray(BLOCK)
        view = memoryview(buffer)
        while read := handle.readinto(buffer):
            digest.update(view[:read])
    return digest.hexdigest()


class HashCache:
    """sha256 of files, remembered by (path, size, inode, mtime); safe across processes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_path()
        self._db = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS digests (path TEXT PRIMARY KEY, "
                             "size INTEGER, inode INTEGER, mtime_ns INTEGER, sha256 TEXT)")
        except (OSError, sqlite3.Error) as error:
            log.warning("hash cache %s unavailable (%s): hashing without it", self.path, error)
            self._db = None

    def sha256(self, path: str | os.PathLike) -> str:
        path = Path(path).resolve()
        stat = path.stat()
        key = (stat.st_size, stat.st_ino, stat.st_mtime_ns)
        if self._db is not None:
            row = self._db.execute("SELECT size, inode, mtime_ns, sha256 FROM digests "
                                   "WHERE path = ?", (str(path),)).fetchone()
            if row and tuple(row[:3]) == key:
                return row[3]
        digest = _sha256_of(path)
        if self._db is not None:
            with self._db:
                self._db.execute("INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?, ?)",
                                 (str(path), *key, digest))
        return digest


def file_sha256(path: str | os.PathLike, cached: bool = True) -> str:
    return HashCache().sha256(path) if cached else _sha256_of(Path(path))


def combined_sha256(named_digests: Iterable[tuple[str, str]]) -> str:
    """One digest for a set of files: sha256 over their sorted names and digests."""
    digest = hashlib.sha256()
    for name, file_digest in sorted(named_digests):
        digest.update(f"{name}\0{file_digest}\n".encode())
    return digest.hexdigest()


def checkpoint_sha256(folder: str | os.PathLike, cached: bool = True) -> str:
    """Content hash of a checkpoint folder: its weights and JSON files, provenance.json
    excepted (it describes the folder and may be rewritten)."""
    folder = Path(folder)
    cache = HashCache() if cached else None
    files = [f for f in sorted(folder.iterdir())
             if f.suffix in {".safetensors", ".json"} and f.name != "provenance.json"]
    return combined_sha256(
        (f.name, cache.sha256(f) if cache else _sha256_of(f)) for f in files)
