"""Streaming weight averaging: θ = Σ w_i θ_i with Σ w_i = 1, any real weights.

θ_α = α·θ_high + (1−α)·θ_low is the two-parent case (α outside [0, 1]
extrapolates), and base + Σ w_i (θ_i − base) is the same affine combination
with the base weighted 1 − Σ w_i. Tensors are read one at a time from sharded
safetensors, combined in float32 (α is never rounded to bf16), written back in
the parents' dtype into new shards with an index, and released as they go.
The output is a complete save_pretrained folder plus provenance.json, written
to a temporary folder `.NAME.tmp-PID` beside it and renamed, so a killed merge
leaves nothing that looks complete; the next merge to that output deletes the
temporary folders of merges whose process is gone (a `kill -9` skips every
cleanup, and at 32B such a folder holds tens of GB).

Speed: tensors are read with pread into fresh buffers (no memory map, so the
parents' pages never count toward this process's memory), two parents are
combined by one fused `torch.lerp` in their own dtype (for bf16 and fp16 torch
computes it in float32 with a float32 weight and rounds once), and several
outputs can be written from one read of the parents.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
import struct
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import torch
from tqdm import tqdm

from codefrontier import __version__
from codefrontier.pipeline.provenance import checkpoint_sha256, record, recorded_path

log = logging.getLogger("codefrontier.merge")

SINGLE_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
WEIGHT_FILES = {SINGLE_FILE, INDEX_FILE}
DEFAULT_SHARD_BYTES = 2 * 2**30


class MergeError(ValueError):
    pass


_DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
                "U8": 1, "BOOL": 1}
_TORCH_DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32,
                 "F64": torch.float64, "I64": torch.int64, "I32": torch.int32,
                 "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


@dataclass(frozen=True)
class _TensorInfo:
    name: str
    dtype: str  # safetensors name, e.g. "BF16"
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * _DTYPE_BYTES[self.dtype]


class Buffer:
    """Reusable memory for one tensor at a time: each tensor is a view of its start, so
    its pages are faulted in once per merge rather than once per tensor."""

    def __init__(self) -> None:
        self._bytes = torch.empty(0, dtype=torch.uint8)

    def view(self, info: _TensorInfo) -> torch.Tensor:
        if self._bytes.numel() < info.nbytes:
            self._bytes = torch.empty(info.nbytes, dtype=torch.uint8)
        return self._bytes[:info.nbytes].view(_TORCH_DTYPES[info.dtype]).view(info.shape)


class SafetensorsFile:
    """One .safetensors file: its header, and tensors read on demand with pread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)
        try:
            (length,) = struct.unpack("<Q", os.pread(self._fd, 8, 0))
            header = json.loads(os.pread(self._fd, length, 8))
        except (struct.error, ValueError) as error:
            os.close(self._fd)
            raise MergeError(f"{path}: not a safetensors file ({error})") from error
        header.pop("__metadata__", None)
        self._data_start = 8 + length
        self._entries = {name: (_TensorInfo(name, entry["dtype"], tuple(entry["shape"])),
                                entry["data_offsets"]) for name, entry in header.items()}

    def infos(self) -> list[_TensorInfo]:
        return [info for info, _ in self._entries.values()]

    def read(self, name: str, buffer: Buffer | None = None) -> torch.Tensor:
        info, (start, end) = self._entries[name]
        tensor = (buffer or Buffer()).view(info)
        view = memoryview(tensor.reshape(-1).view(torch.uint8).numpy())
        done = 0
        while done < end - start:
            read = os.preadv(self._fd, [view[done:]], self._data_start + start + done)
            if read == 0:
                raise MergeError(f"{self.path}: truncated while reading {name!r}")
            done += read
        return tensor

    def close(self) -> None:
        os.close(self._fd)


@dataclass(frozen=True)
class Checkpoint:
    """A save_pretrained folder's tensors: name -> shard file."""

    path: Path
    weight_map: dict[str, str]

    @classmethod
    def open(cls, path: str | os.PathLike) -> Checkpoint:
        path = Path(path)
        if (path / INDEX_FILE).exists():
            weight_map = json.loads((path / INDEX_FILE).read_text())["weight_map"]
        elif (path / SINGLE_FILE).exists():
            single = SafetensorsFile(path / SINGLE_FILE)
            weight_map = {info.name: SINGLE_FILE for info in single.infos()}
            single.close()
        else:
            raise MergeError(f"{path}: no {SINGLE_FILE} or {INDEX_FILE}: not a checkpoint folder")
        return cls(path, weight_map)

    def config(self) -> dict:
        config = self.path / "config.json"
        return json.loads(config.read_text()) if config.exists() else {}


def _check_compatible(parents: Sequence[Checkpoint]) -> None:
    first = parents[0]
    for other in parents[1:]:
        missing = first.weight_map.keys() ^ other.weight_map.keys()
        if missing:
            name = sorted(missing)[0]
            raise MergeError(f"tensor {name!r} is in only one of {first.path} and {other.path} "
                             f"({len(missing)} names differ)")
        arch = first.config().get("architectures"), other.config().get("architectures")
        if arch[0] != arch[1]:
            raise MergeError(f"architectures differ: {first.path} {arch[0]}, {other.path} {arch[1]}")


class _StreamingShardWriter:
    """Writes safetensors shards whose headers are known up front (names, dtypes and
    shapes come from the parents), so each tensor goes to disk as soon as it is merged
    and no shard is ever held in memory."""

    def __init__(self, folder: Path, tensors: Sequence[_TensorInfo], shard_bytes: int) -> None:
        groups: list[list[_TensorInfo]] = [[]]
        size = 0
        for info in tensors:
            if groups[-1] and size + info.nbytes > shard_bytes:
                groups.append([])
                size = 0
            groups[-1].append(info)
            size += info.nbytes
        total = len(groups)
        self.folder = folder
        self.files = [f"model-{i:05d}-of-{total:05d}.safetensors" for i in range(1, total + 1)]
        self.groups = groups
        self.weight_map = {info.name: self.files[i] for i, g in enumerate(groups) for info in g}
        self.total_bytes = sum(info.nbytes for info in tensors)
        self._order = list(tensors)  # grouping keeps the order
        self._position = 0
        self._handle = None
        self._group_index = -1
        self._left_in_group = 0

    def _open_next_shard(self) -> None:
        if self._handle is not None:
            self._handle.close()
        self._group_index += 1
        group = self.groups[self._group_index]
        header: dict = {"__metadata__": {"format": "pt"}}
        offset = 0
        for info in group:
            header[info.name] = {"dtype": info.dtype, "shape": list(info.shape),
                                 "data_offsets": [offset, offset + info.nbytes]}
            offset += info.nbytes
        encoded = json.dumps(header, separators=(",", ":")).encode()
        encoded += b" " * (-len(encoded) % 8)  # the format aligns the data to 8 bytes
        self._handle = open(self.folder / self.files[self._group_index], "wb")  # noqa: SIM115
        self._handle.write(len(encoded).to_bytes(8, "little") + encoded)
        self._left_in_group = len(group)

    def write(self, name: str, tensor: torch.Tensor) -> None:
        expected = self._order[self._position]
        if name != expected.name:
            raise RuntimeError(f"tensors must come in plan order: got {name}, "
                               f"expected {expected.name}")
        if self._left_in_group == 0:
            self._open_next_shard()
        data = tensor.contiguous().reshape(-1).view(torch.uint8).numpy()
        self._handle.write(memoryview(data))
        self._position += 1
        self._left_in_group -= 1

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
        index = {"metadata": {"total_size": self.total_bytes}, "weight_map": self.weight_map}
        (self.folder / INDEX_FILE).write_text(json.dumps(index, indent=2, sort_keys=True))


def combine(tensors: Sequence[torch.Tensor], weights: Sequence[float],
            out: torch.Tensor | None = None) -> torch.Tensor:
    """Σ w_i t_i, computed in (at least) float32 and rounded once to the inputs' dtype.

    Two parents: one fused lerp, which for bf16/fp16 works in float32 with a
    float32 weight. More parents: a float32 sum. Non-float tensors (integer
    buffers) cannot be averaged: they must agree across parents and are copied.
    """
    dtype = tensors[0].dtype
    if not dtype.is_floating_point:
        if any(not torch.equal(tensors[0], other) for other in tensors[1:]):
            raise MergeError(f"{dtype} tensors differ between parents and cannot be averaged")
        return tensors[0]
    if len(tensors) == 2:
        return torch.lerp(tensors[0], tensors[1], float(weights[1]), out=out)
    result = tensors[0].float() * float(weights[0])
    for tensor, weight in zip(tensors[1:], weights[1:], strict=True):
        result.add_(tensor.float(), alpha=float(weight))
    return result.to(dtype) if out is None else out.copy_(result)


def squared_norm(tensor: torch.Tensor) -> float:
    """‖t‖² accumulated in float32 without a float32 copy (the returned norm has the
    tensor's precision: for bf16 about 3 significant digits, enough for logging)."""
    if not tensor.dtype.is_floating_point:
        return 0.0
    return float(torch.linalg.vector_norm(tensor)) ** 2


def _copy_auxiliary_files(source: Path, target: Path) -> None:
    """Config, tokenizer, chat template and any other non-weight file of the first parent;
    a generation config that keeps the KV cache on (trainer checkpoints turn it off)."""
    for file in source.iterdir():
        if file.is_file() and file.name not in WEIGHT_FILES and file.suffix != ".safetensors" \
                and file.name != "provenance.json":
            shutil.copy2(file, target / file.name)
    generation = target / "generation_config.json"
    settings = json.loads(generation.read_text()) if generation.exists() else {}
    settings["use_cache"] = True
    generation.write_text(json.dumps(settings, indent=2, sort_keys=True))
    config = target / "config.json"
    if config.exists():
        values = json.loads(config.read_text())
        values["use_cache"] = True
        config.write_text(json.dumps(values, indent=2, sort_keys=True))


def _check_weights(parents: Sequence, weights: Sequence[float]) -> None:
    if len(parents) != len(weights) or len(parents) < 2:
        raise MergeError("give at least two parents and one weight per parent")
    if not math.isclose(sum(weights), 1.0, abs_tol=1e-9):
        raise MergeError(f"weights must sum to 1 (an affine combination), got {sum(weights)}")


def alpha_weights(alpha: float) -> list[float]:
    """[1 − α, α], the weights of θ_low and θ_high in θ_α = α·θ_high + (1−α)·θ_low."""
    weights = [1.0 - alpha, alpha]
    # a huge |α| leaves finite weights whose float sum is no longer 1 (1 − 1e308 == −1e308)
    if not (math.isfinite(alpha) and math.isclose(sum(weights), 1.0, abs_tol=1e-9)):
        raise MergeError(f"α must be a finite number small enough that the weights 1 − α and "
                         f"α add up to 1 in floating point, got {alpha!r}")
    return weights


def merge_alphas(low: str | os.PathLike, high: str | os.PathLike, alphas: Sequence[float],
                 outs: Sequence[str | os.PathLike], force: bool = False,
                 shard_bytes: int = DEFAULT_SHARD_BYTES,
                 extra_provenance: dict | None = None) -> list[Path]:
    """θ_α = α·θ_high + (1−α)·θ_low for each α (one output folder each) from one read of
    the parents; each provenance.json records its α as asked for, beside the weights."""
    weight_sets = [alpha_weights(alpha) for alpha in alphas]
    return merge_many([low, high], weight_sets, outs, force, shard_bytes, extra_provenance,
                      output_provenance=[{"alpha": float(alpha)} for alpha in alphas])


def merge_checkpoints(parents: Sequence[str | os.PathLike], weights: Sequence[float],
                      out: str | os.PathLike, force: bool = False,
                      shard_bytes: int = DEFAULT_SHARD_BYTES,
                      extra_provenance: dict | None = None) -> Path:
    """Write Σ w_i θ_i (weights summing to 1) as a save_pretrained folder at `out`."""
    return merge_many(parents, [weights], [out], force, shard_bytes, extra_provenance)[0]


def merge_many(parents: Sequence[str | os.PathLike], weight_sets: Sequence[Sequence[float]],
               outs: Sequence[str | os.PathLike], force: bool = False,
               shard_bytes: int = DEFAULT_SHARD_BYTES,
               extra_provenance: dict | None = None,
               output_provenance: Sequence[dict] | None = None) -> list[Path]:
    """Several combinations of the same parents (e.g. a grid of α) from one read of them.
    `extra_provenance` goes into every output's provenance.json, output_provenance[i]
    into that of outs[i] only."""
    if len(weight_sets) != len(outs) or not outs:
        raise MergeError("give one output folder per set of weights")
    output_provenance = output_provenance or [{} for _ in outs]
    if len(output_provenance) != len(outs):
        raise MergeError(f"give one output_provenance record per output folder "
                         f"({len(outs)} expected, got {len(output_provenance)})")
    for weights in weight_sets:
        _check_weights(parents, weights)
    outs = [Path(out) for out in outs]
    for out in outs:
        if out.exists() and not force:
            raise MergeError(f"{out} exists; pass --force to overwrite it")
    checkpoints = [Checkpoint.open(p) for p in parents]
    _check_compatible(checkpoints)
    for out in outs:
        remove_stale_temporaries(out)
    with ThreadPoolExecutor(1) as background:  # hashing overlaps the merge
        hashes = background.submit(lambda: [checkpoint_sha256(c.path) for c in checkpoints])
        temporaries = [out.with_name(f".{out.name}.tmp-{os.getpid()}") for out in outs]
        try:
            for tmp in temporaries:
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir(parents=True)
            reports = _merge_tensors(checkpoints, weight_sets, temporaries, shard_bytes)
            parent_records = [{**recorded_path(c.path), "sha256": digest}
                              for c, digest in zip(checkpoints, hashes.result(), strict=True)]
            shared = {**record([]), "inputs": parent_records}
            for tmp, out, weights, report, own in zip(temporaries, outs, weight_sets, reports,
                                                      output_provenance, strict=True):
                _copy_auxiliary_files(checkpoints[0].path, tmp)
                provenance = {
                    **shared, "kind": "merge", "weights": list(weights),
                    "dtype": report["dtype"], "codefrontier_version": __version__,
                    "torch_version": torch.__version__,
                    "delta_norm": report["delta"], "result_norm": report["result"],
                    **(extra_provenance or {}), **own,
                }
                (tmp / "provenance.json").write_text(json.dumps(provenance, indent=2,
                                                                sort_keys=True))
                if out.exists():
                    shutil.rmtree(out)
                tmp.rename(out)
                log.info("merged %s with weights %s -> %s (|θ_last - θ_first| = %.4g, "
                         "|θ| = %.4g)", [str(c.path) for c in checkpoints], list(weights), out,
                         report["delta"], report["result"])
        except BaseException:
            for tmp in temporaries:
                shutil.rmtree(tmp, ignore_errors=True)
            raise
    return outs


def remove_stale_temporaries(out: Path) -> list[Path]:
    """Delete the temporary folders `.NAME.tmp-PID` beside `out` whose merge process is
    gone; those of merges still running (and this process's own) are kept."""
    if not out.parent.is_dir():
        return []
    removed = []
    pattern = re.compile(rf"\.{re.escape(out.name)}\.tmp-([0-9]+)")
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


def _plan(checkpoint: Checkpoint) -> list[_TensorInfo]:
    """Every tensor's name, dtype and shape, shard by shard, from the headers alone."""
    infos = []
    for shard in sorted(set(checkpoint.weight_map.values())):
        reader = SafetensorsFile(checkpoint.path / shard)
        names = {name for name, where in checkpoint.weight_map.items() if where == shard}
        infos += sorted((i for i in reader.infos() if i.name in names), key=lambda i: i.name)
        reader.close()
    return infos


def _read_matching(checkpoints: Sequence[Checkpoint], readers: dict, remaining: Counter,
                   info: _TensorInfo, buffers: Sequence[Buffer]) -> list[torch.Tensor]:
    """The tensor `info.name` from every parent; a shard is closed once fully read."""
    tensors = []
    for index, checkpoint in enumerate(checkpoints):
        key = (index, checkpoint.weight_map[info.name])
        if key not in readers:
            readers[key] = SafetensorsFile(checkpoint.path / key[1])
        tensors.append(readers[key].read(info.name, buffers[index]))
        remaining[key] -= 1
        if not remaining[key]:
            readers.pop(key).close()
    if len({(tuple(t.shape), t.dtype) for t in tensors}) > 1:
        described = ", ".join(f"{c.path}: {tuple(t.shape)} {t.dtype}"
                              for c, t in zip(checkpoints, tensors, strict=True))
        raise MergeError(f"tensor {info.name!r} differs between parents: {described}")
    return tensors


def _merge_tensors(checkpoints: Sequence[Checkpoint], weight_sets: Sequence[Sequence[float]],
                   folders: Sequence[Path], shard_bytes: int) -> list[dict]:
    plan = _plan(checkpoints[0])
    writers = [_StreamingShardWriter(folder, plan, shard_bytes) for folder in folders]
    readers: dict[tuple[int, str], SafetensorsFile] = {}
    remaining = Counter((index, checkpoint.weight_map[info.name])
                        for info in plan for index, checkpoint in enumerate(checkpoints))
    delta_sq = 0.0
    result_sq = [0.0] * len(folders)
    dtypes = set()
    inputs, output = [Buffer() for _ in checkpoints], Buffer()
    try:
        for info in tqdm(plan, desc="merge", unit="tensor", disable=len(plan) < 50,
                         mininterval=2):
            tensors = _read_matching(checkpoints, readers, remaining, info, inputs)
            dtypes.add(str(tensors[0].dtype).removeprefix("torch."))
            if tensors[0].dtype.is_floating_point:
                delta_sq += squared_norm(torch.sub(tensors[-1], tensors[0], out=output.view(info)))
            for position, (writer, weights) in enumerate(zip(writers, weight_sets, strict=True)):
                merged = combine(tensors, weights, out=output.view(info))
                norm_sq = squared_norm(merged)
                if not math.isfinite(norm_sq) and not torch.isfinite(merged).all():
                    raise MergeError(f"tensor {info.name!r} has non-finite values after merging "
                                     f"with weights {list(weights)}")
                result_sq[position] += norm_sq
                writer.write(info.name, merged)
    finally:
        for writer in writers:
            writer.close()
        for reader in readers.values():
            reader.close()
    dtype = ",".join(sorted(dtypes))
    return [{"delta": math.sqrt(delta_sq), "result": math.sqrt(sq), "dtype": dtype}
            for sq in result_sq]
