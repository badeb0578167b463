"""Content hashes of files and checkpoint folders, with a stat-keyed cache.

Hashing a 32B checkpoint (64 GB) takes about 45 s at sha256's 1.5 GB/s, and
every merge, sampling job and audit would pay it again for the same parents.
Like git's index and DVC, the cache keys a file's digest by its path, size,
inode and modification time: a file rewritten in any way that changes one of
them is hashed again. `codefrontier audit` bypasses the cache.
"""

from __future__ import annotations

import functools
import hashlib
import json
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


@functools.cache
def code_version() -> str:
    """sha256 (16 hex digits) over the package's source files: any code change shows."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for file in sorted(root.rglob("*.py")):
        digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


def content_sha256(path: str | os.PathLike, cached: bool = True) -> str:
    """A file's sha256, or a checkpoint folder's content hash."""
    path = Path(path)
    return checkpoint_sha256(path, cached) if path.is_dir() else file_sha256(path, cached)


# The workflow passes the slice of the config a step used (`--provenance-config`);
# every provenance record written by this process carries it.
_config_slice: dict | None = None


def set_config_slice(value: dict | None) -> None:
    global _config_slice
    _config_slice = value


def record(inputs: Iterable[str | os.PathLike], **fields) -> dict:
    """A provenance record: inputs with content hashes, code version, config slice."""
    import platform

    return {
        **fields,
        "inputs": [{"path": str(Path(p).resolve()), "sha256": content_sha256(p)} for p in inputs],
        "code_version": code_version(),
        "config": _config_slice,
        "python_version": platform.python_version(),
    }


PARQUET_KEY = "codefrontier.provenance"


def read_provenance(path: str | os.PathLike) -> dict | None:
    """The provenance of an output: provenance.json of a folder, a parquet footer entry."""
    path = Path(path)
    if path.is_dir():
        file = path / "provenance.json"
        return json.loads(file.read_text()) if file.exists() else None
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        metadata = pq.read_schema(path).metadata or {}
        raw = metadata.get(PARQUET_KEY.encode())
        return json.loads(raw) if raw else None
    return None
