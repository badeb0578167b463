"""Content hashes of files and checkpoint folders, with a stat-keyed cache.

Hashing a 32B checkpoint (64 GB) takes about 45 s at sha256's 1.5 GB/s, and
every merge, sampling job and audit would pay it again for the same parents.
Like git's index and DVC, the cache keys a file's digest by its path, size,
inode and modification time: a file rewritten in any way that changes one of
them is hashed again. `codefrontier audit` bypasses the cache.

Input paths in a record are relative to the workflow root, the directory the
step ran in (Snakemake runs every rule from the directory that holds results/),
when the input lies under it, so a copied or moved results tree is audited
against its own files (`codefrontier audit --root`). Inputs outside it (a hub
cache, a dataset folder) are recorded as absolute paths, as all inputs were
before; a relative entry is marked `"relative_to": "root"`.
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

from codefrontier.base.kernels import kernel_settings

log = logging.getLogger("codefrontier.base.provenance")

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
    root = Path(__file__).resolve().parents[1]  # the codefrontier package
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


ROOT_MARKER = {"relative_to": "root"}


def recorded_path(path: str | os.PathLike) -> dict[str, str]:
    """How a record names an input: relative to the working directory (the workflow
    root) with ROOT_MARKER when the input is under it, else its absolute path."""
    root = Path.cwd()
    # Lexically first, so that an input reached through a symlinked folder under the
    # root (results/ on scratch) stays root-relative; then as the filesystem sees it.
    lexical = Path(os.path.abspath(path))
    for candidate in (lexical, lexical.resolve()):
        if candidate.is_relative_to(root):
            return {"path": candidate.relative_to(root).as_posix(), **ROOT_MARKER}
    return {"path": str(lexical.resolve())}


def resolve_recorded_path(item: dict, root: str | os.PathLike) -> Path:
    """The file a record's input entry names, with root-relative paths taken from `root`
    (absolute ones, as old records hold them, stay where they are)."""
    path = Path(item["path"])
    return path if path.is_absolute() else Path(os.path.abspath(root)) / path


def record(inputs: Iterable[str | os.PathLike], **fields) -> dict:
    """A provenance record: inputs with content hashes, code version, config slice."""
    import platform

    return {
        **fields,
        "inputs": [{**recorded_path(p), "sha256": content_sha256(p)} for p in inputs],
        "code_version": code_version(),
        "config": _config_slice,
        "python_version": platform.python_version(),
        "machine": machine(),
    }


def machine() -> dict[str, str]:
    """The processor a record was made on: floating-point results (and with them a
    training run's every later sample) differ between CPUs whose math libraries take
    different kernels, so equal tables are only expected from equal entries here."""
    import platform
    import sys

    model, flags = _cpu_info()
    found = {"arch": platform.machine(), "cpu": model or platform.processor(),
             "isa": [name for name in DISPATCHED_ISA if name in flags]}
    if "torch" in sys.modules:  # never imported for this: a merge may not load it
        found["torch_cpu_capability"] = sys.modules["torch"].backends.cpu.get_cpu_capability()
    found["kernels"] = kernel_settings()
    return found


# The instruction sets PyTorch, MKL and oneDNN choose kernels by (a VM's model name is
# often just "Intel(R) Xeon(R) Processor").
DISPATCHED_ISA = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16",
                  "amx_tile", "amx_bf16", "asimd", "sve")


def _cpu_info() -> tuple[str, set[str]]:
    """The first processor's model name and flags from /proc/cpuinfo (Linux)."""
    model, flags = "", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and not model:
                    model = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return model, flags


PARQUET_KEY = "codefrontier.base.provenance"
PROVENANCE_FILE = "provenance.json"


MARKDOWN_MARK = f"<!-- {PARQUET_KEY} "


def markdown_with_provenance(report: str, provenance: dict) -> str:
    """A Markdown report with its provenance record as a last-line comment (not rendered)."""
    return f"{report.rstrip()}\n\n{MARKDOWN_MARK}{json.dumps(provenance, sort_keys=True)} -->\n"


def parquet_metadata(provenance: dict) -> dict[str, str]:
    """A parquet footer's metadata carrying a provenance record (`read_provenance`)."""
    return {PARQUET_KEY: json.dumps(provenance, sort_keys=True)}
RECORDED_LIBRARIES = ("torch", "transformers", "trl")


def library_versions() -> dict[str, str]:
    """The installed versions of the libraries a checkpoint depends on, read from the
    package metadata (no import: a merge never loads transformers)."""
    from importlib import metadata

    from codefrontier import __version__

    versions = {"codefrontier_version": __version__}
    for name in RECORDED_LIBRARIES:
        try:
            versions[f"{name}_version"] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def write_provenance(folder: str | os.PathLike, provenance: dict) -> Path:
    """The one writer of a checkpoint folder's provenance.json: the record plus the
    library versions, keys sorted so that equal records are equal files."""
    file = Path(folder) / PROVENANCE_FILE
    file.write_text(json.dumps({**provenance, **library_versions()}, indent=2, sort_keys=True))
    return file


class UnreadableProvenance(Exception):
    """An output whose provenance cannot be read: a damaged parquet, a provenance.json
    that is not JSON. `path` is the file at fault."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: unreadable: {reason}")
        self.path, self.reason = path, reason


def read_provenance(path: str | os.PathLike) -> dict | None:
    """The provenance of an output: provenance.json of a folder, a parquet footer entry,
    a Markdown report's last-line comment, a JSON record file. None when it has none; UnreadableProvenance
    when it cannot be read."""
    path = Path(path)
    if path.is_dir():
        file = path / PROVENANCE_FILE
        return _parse_record(file, _read(file, Path.read_bytes)) if file.exists() else None
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        metadata = _read(path, pq.read_schema).metadata or {}
        raw = metadata.get(PARQUET_KEY.encode())
        return _parse_record(path, raw) if raw else None
    if path.suffix == ".json":  # a record of its own (a merge's record: layout.MERGE_RECORD)
        return _parse_record(path, _read(path, Path.read_bytes))
    if path.suffix == ".md":
        last = _read(path, Path.read_text).rstrip().rsplit("\n", 1)[-1]
        if last.startswith(MARKDOWN_MARK) and last.endswith("-->"):
            return _parse_record(path, last[len(MARKDOWN_MARK):-3].encode())
    return None


def _read(path: Path, reader):
    import pyarrow as pa

    try:
        return reader(path)
    except (OSError, pa.ArrowException) as error:
        raise UnreadableProvenance(path, str(error) or type(error).__name__) from error


def _parse_record(path: Path, raw: bytes) -> dict:
    try:
        value = json.loads(raw)
    except ValueError as error:  # JSONDecodeError and UnicodeDecodeError alike
        raise UnreadableProvenance(path, f"not valid JSON ({error})") from error
    if not isinstance(value, dict):
        raise UnreadableProvenance(path, f"a provenance record is a JSON object, not "
                                         f"{type(value).__name__}")
    return value
