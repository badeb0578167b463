"""A job's finished work, kept in shards beside its output, so that a killed job resumes.

A job that writes OUT (`sample`, `second-attempt sample`, `judge`) keeps each finished
piece of its work, a shard (a batch of samples, a chunk of episodes, judged samples), in
the work folder `OUT.work/`, as training keeps its checkpoints (train/common.py): one JSON
file per shard, written atomically (a temporary file, then a rename), beside the job's
fingerprint, `run.json` (its inputs' content hashes, its settings, the code and library
versions). A rerun with the same fingerprint keeps the shards and does only what is
missing; a rerun whose fingerprint differs discards them and says what changed. The job
writes OUT from its shards, then removes the folder. The folder is no output of a rule,
so Snakemake, which deletes a failed job's outputs, leaves it for the rerun.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from codefrontier.base.provenance import code_version, content_sha256, library_versions

log = logging.getLogger("codefrontier.base.shards")

WORK_SUFFIX = ".work"
FINGERPRINT_FILE = "run.json"
SHARD_SUFFIX = ".json"
SHARD_NAME = re.compile(r"[A-Za-z0-9_-]+")


def work_folder(out: str | os.PathLike) -> Path:
    """Where a job that writes `out` keeps its work: `OUT.work/` beside it."""
    out = Path(out)
    return out.with_name(out.name + WORK_SUFFIX)


def job_fingerprint(kind: str, inputs: Iterable[str | os.PathLike], **fields) -> dict[str, Any]:
    """What a job's output depends on: its inputs' contents (a checkpoint folder's too),
    its `fields` (settings), and the code and libraries that compute it. As JSON reads
    it back, so that it compares equal with the stored one."""
    fingerprint = {"kind": kind, **fields,
                   "inputs": {str(path): content_sha256(path) for path in inputs},
                   "code_version": code_version(), **library_versions()}
    return json.loads(json.dumps(fingerprint, default=str))


def json_sha256(value: Any) -> str:
    """A digest of a JSON-serialisable value (what a shard was made from: its prompts),
    so that a kept shard is taken only for the same work."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def fingerprint_changes(old: dict[str, Any], new: dict[str, Any], shown: int = 6,
                        flatten: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> str:
    """What differs between two fingerprints, as `key old -> new` items: keys as
    `flatten` names them (by default nested keys joined by dots)."""
    flatten = flatten or _flat
    before, after = flatten(old), flatten(new)
    changes = [f"{key} {_short(before.get(key))} -> {_short(after.get(key))}"
               for key in sorted(before.keys() | after.keys()) if before.get(key) != after.get(key)]
    if len(changes) > shown:
        changes = [*changes[:shown], f"and {len(changes) - shown} more"]
    return ", ".join(changes)


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        return {prefix: value}
    flat = {}
    for key, item in value.items():
        flat |= _flat(item, f"{prefix}.{key}" if prefix else str(key))
    return flat


def _short(value: Any) -> str:
    """A value as JSON writes it; sha256 digests cut to 12 hex digits."""
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:12] + "…"
    return json.dumps(value)


class ShardStore:
    """The shards of the job that writes `out`, for this `fingerprint` (job_fingerprint).
    Opening it discards the shards of another fingerprint; `kept` names the shards an
    earlier run of the same job left."""

    def __init__(self, out: str | os.PathLike, fingerprint: dict[str, Any]) -> None:
        self.folder = work_folder(out)
        self.folder.mkdir(parents=True, exist_ok=True)
        for temporary in self.folder.glob(".*"):  # a write cut short by a kill
            temporary.unlink()
        stored = self._stored_fingerprint()
        if self._names() and stored != fingerprint:
            reason = (fingerprint_changes(stored, fingerprint) if stored is not None
                      else f"no readable {FINGERPRINT_FILE}")
            log.info("not resuming from %s: %s; starting afresh", self.folder, reason)
            for name in self._names():
                self._path(name).unlink()
        self._write(FINGERPRINT_FILE, fingerprint)
        self.kept = self._names()
        if self.kept:
            log.info("resuming: %d shards of an earlier run kept in %s", len(self.kept),
                     self.folder)

    def get(self, name: str) -> Any | None:
        """The content of shard `name`, or None when there is no such shard."""
        shard = self._read(name)
        return None if shard is None else shard["content"]

    def put(self, name: str, content: Any, counts: dict[str, int] | None = None) -> None:
        """Keep shard `name` (JSON-serialisable content), replacing one of that name.
        `counts` are tallies of the work that made it (judge workers lost), which a
        resumed job adds up with `kept_count`."""
        self._write(self._path(name).name, {"content": content, "counts": counts or {}})

    def kept_count(self, key: str) -> int:
        """The sum of a tally over the shards that earlier runs left (`kept`)."""
        return sum((self._read(name) or {}).get("counts", {}).get(key, 0) for name in self.kept)

    def remove(self) -> None:
        """Delete the work folder: the job's output is written."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def _names(self) -> list[str]:
        return sorted(path.name.removesuffix(SHARD_SUFFIX) for path in self.folder.iterdir()
                      if path.suffix == SHARD_SUFFIX and path.name != FINGERPRINT_FILE
                      and not path.name.startswith("."))

    def _path(self, name: str) -> Path:
        if not SHARD_NAME.fullmatch(name):
            raise ValueError(f"a shard name is letters, digits, '-' and '_', not {name!r}")
        return self.folder / f"{name}{SHARD_SUFFIX}"

    def _read(self, name: str) -> dict | None:
        try:
            return json.loads(self._path(name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def _stored_fingerprint(self) -> dict | None:
        try:
            return json.loads((self.folder / FINGERPRINT_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _write(self, file_name: str, value: Any) -> None:
        path = self.folder / file_name
        temporary = path.with_name(f".{file_name}.tmp-{os.getpid()}")
        temporary.write_text(json.dumps(value), encoding="utf-8")  # ASCII: any str round-trips
        temporary.replace(path)
