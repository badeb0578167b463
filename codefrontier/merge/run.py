"""Running one merge: the parents opened and checked against each other, their tensors
streamed through (reader → method → writer), the first parent's other files and
provenance.json added, and the folder published by rename.

The output is written to the temporary folder `.NAME.tmp-PID` beside it and renamed
into place once complete (codefrontier.base.publish), so a killed merge leaves nothing that
looks complete. A `kill -9` skips every cleanup, and at 32B such a folder holds tens of
GB: the next merge to the same output deletes the temporary folders of merges whose
process is gone.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from codefrontier.base.provenance import (
    checkpoint_sha256,
    read_provenance,
    record,
    recorded_path,
    write_provenance,
)
from codefrontier.base.publish import publishing, temporary_beside
from codefrontier.merge.errors import MergeError
from codefrontier.merge.method import alpha_weights, check_weights
from codefrontier.merge.pipeline import Totals, stream_merge
from codefrontier.merge.reader import WeightFolder, check_same_tensors
from codefrontier.merge.writer import DEFAULT_SHARD_BYTES, ShardWriter, copy_auxiliary_files

log = logging.getLogger("codefrontier.merge")


def merge_alpha(low: str | os.PathLike, high: str | os.PathLike, alpha: float,
                out: str | os.PathLike, force: bool = False,
                shard_bytes: int = DEFAULT_SHARD_BYTES,
                extra_provenance: dict | None = None, workers: int | None = None) -> Path:
    """θ_α = α·θ_high + (1−α)·θ_low as a save_pretrained folder at `out`; α outside
    [0, 1] extrapolates. provenance.json records α as asked for, beside the weights."""
    return merge_checkpoints([low, high], alpha_weights(alpha), out, force, shard_bytes,
                             {**(extra_provenance or {}), "alpha": float(alpha)}, workers)


def merge_checkpoints(parents: Sequence[str | os.PathLike], weights: Sequence[float],
                      out: str | os.PathLike, force: bool = False,
                      shard_bytes: int = DEFAULT_SHARD_BYTES,
                      extra_provenance: dict | None = None, workers: int | None = None) -> Path:
    """Σ w_i θ_i (weights summing to 1) as a save_pretrained folder at `out`;
    `extra_provenance` is added to its provenance.json. `workers` threads merge pieces
    at once (default: one per core this process may run on, up to pipeline.MAX_WORKERS);
    the weights are the same for any number."""
    check_weights(len(parents), weights)
    out = Path(out)
    if out.exists() and not force:
        raise MergeError(f"{out} exists; pass --force to overwrite it")
    with ExitStack() as stack:
        folders = [stack.enter_context(WeightFolder(parent)) for parent in parents]
        check_same_tensors(folders)
        remove_stale_temporaries(out)
        with ThreadPoolExecutor(1) as hashing:  # hashing overlaps the merge
            inputs = hashing.submit(_input_records, folders)
            with publishing(out) as tmp:
                totals = _write_weights(folders, weights, tmp, shard_bytes, workers)
                copy_auxiliary_files(folders[0].path, tmp)
                write_provenance(tmp, {
                    **record([]), "inputs": inputs.result(), "kind": "merge",
                    "weights": list(weights), "dtype": ",".join(sorted(totals.dtypes)),
                    "delta_norm": math.sqrt(totals.delta_sq),
                    "result_norm": math.sqrt(totals.result_sq), **(extra_provenance or {})})
    log.info("merged %s with weights %s -> %s (|θ_last - θ_first| = %.4g, |θ| = %.4g)",
             [str(folder.path) for folder in folders], list(weights), out,
             math.sqrt(totals.delta_sq), math.sqrt(totals.result_sq))
    return out


def write_merge_record(folder: str | os.PathLike, record: str | os.PathLike) -> Path:
    """A merged folder's record (layout.MERGE_RECORD): its provenance, the folder's path
    and content hash. With the record, the folder can go once it is sampled: the audit
    verifies the samples' input through it, and the same merge of the same parents
    remakes the folder bit for bit."""
    folder, record = Path(folder), Path(record)
    provenance = read_provenance(folder)
    if provenance is None:
        raise MergeError(f"{folder} has no provenance.json: not a merged checkpoint")
    entry = {**provenance, "checkpoint": recorded_path(folder),
             "checkpoint_sha256": checkpoint_sha256(folder)}
    scratch = record.with_name(f".{record.name}.tmp-{os.getpid()}")
    scratch.write_text(json.dumps(entry, indent=2, sort_keys=True))
    scratch.replace(record)
    return record


def _write_weights(folders: Sequence[WeightFolder], weights: Sequence[float], target: Path,
                   shard_bytes: int, workers: int | None = None) -> Totals:
    tensors = folders[0].tensors()
    writer = ShardWriter(target, tensors, shard_bytes)
    try:
        totals = stream_merge(folders, weights, writer, tensors, workers=workers)
        writer.finish()
    finally:
        writer.close()
    return totals


def _input_records(folders: Sequence[WeightFolder]) -> list[dict]:
    return [{**recorded_path(folder.path), "sha256": checkpoint_sha256(folder.path)}
            for folder in folders]


def remove_stale_temporaries(out: str | os.PathLike) -> list[Path]:
    """Delete the temporary folders `.NAME.tmp-PID` beside `out` whose merge process is
    gone; those of merges still running (and this process's own) are kept."""
    out = Path(out)
    if not out.parent.is_dir():
        return []
    removed = []
    pattern = re.compile(re.escape(temporary_beside(out, tag="").name) + "([0-9]+)")
    for folder in out.parent.iterdir():
        match = pattern.fullmatch(folder.name)
        if not (match and folder.is_dir()):
            continue
        pid = int(match.group(1))
        if pid == os.getpid() or _process_exists(pid):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        log.warning("removed %s, left by merge process %d, which no longer runs", folder, pid)
        removed.append(folder)
    return removed


def _process_exists(pid: int) -> bool:
    """Whether some process has this id (the same test as /proc/PID existing). It may be
    another program that reused the id of a killed merge: then the folder is kept, the
    safe mistake. A merge on another host sharing the folder would look gone: two merges
    must not write the same output at once."""
    if pid <= 0:  # kill(0) and kill(-n) address process groups
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process; no such id at all
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True
