"""Streaming weight averaging: θ = Σ w_i θ_i with Σ w_i = 1, any real weights.

θ_α = α·θ_high + (1−α)·θ_low is the two-parent case (α outside [0, 1]
extrapolates), and base + Σ w_i (θ_i − base) is the same affine combination
with the base weighted 1 − Σ w_i. Tensors are read one at a time from sharded
safetensors, combined in float32 (α is never rounded to bf16), written back in
the parents' dtype into new shards with an index, and released as they go.
The output is a complete save_pretrained folder plus provenance.json, written
to a temporary folder and renamed, so a killed merge leaves nothing that looks
complete.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import safe_open

from codefrontier import __version__

log = logging.getLogger("codefrontier.merge")

SINGLE_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
WEIGHT_FILES = {SINGLE_FILE, INDEX_FILE}
DEFAULT_SHARD_BYTES = 2 * 2**30


class MergeError(ValueError):
    pass


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
            with safe_open(path / SINGLE_FILE, framework="pt") as handle:
                weight_map = dict.fromkeys(handle.keys(), SINGLE_FILE)
        else:
            raise MergeError(f"{path}: no {SINGLE_FILE} or {INDEX_FILE}: not a checkpoint folder")
        return cls(path, weight_map)

    def config(self) -> dict:
        config = self.path / "config.json"
        return json.loads(config.read_text()) if config.exists() else {}


def content_hash(path: Path) -> str:
    """sha256 over the folder's weight and config files (names and bytes)."""
    digest = hashlib.sha256()
    for file in sorted(path.iterdir()):
        if file.suffix in {".safetensors", ".json"} and file.name != "provenance.json":
            digest.update(file.name.encode())
            with file.open("rb") as handle:
                for block in iter(lambda h=handle: h.read(1 << 24), b""):
                    digest.update(block)
    return digest.hexdigest()


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


_DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
                "U8": 1, "BOOL": 1}


@dataclass(frozen=True)
class _TensorInfo:
    name: str
    dtype: str  # safetensors name, e.g. "BF16"
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * _DTYPE_BYTES[self.dtype]


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


def combine(tensors: Sequence[torch.Tensor], weights: Sequence[float]) -> torch.Tensor:
    """Σ w_i t_i in float32, returned in float32 (inputs already in float32 are not
    copied). Two tensors use lerp (one fused op)."""
    if len(tensors) == 2:
        low, high = tensors[0].float(), tensors[1].float()
        return torch.lerp(low, high, float(weights[1]))
    result = tensors[0].float() * float(weights[0])
    for tensor, weight in zip(tensors[1:], weights[1:], strict=True):
        result.add_(tensor.float(), alpha=float(weight))
    return result


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


def merge_checkpoints(parents: Sequence[str | os.PathLike], weights: Sequence[float],
                      out: str | os.PathLike, force: bool = False,
                      shard_bytes: int = DEFAULT_SHARD_BYTES,
                      extra_provenance: dict | None = None) -> Path:
    """Write Σ w_i θ_i (weights summing to 1) as a save_pretrained folder at `out`."""
    if len(parents) != len(weights) or len(parents) < 2:
        raise MergeError("give at least two parents and one weight per parent")
    if not math.isclose(sum(weights), 1.0, abs_tol=1e-9):
        raise MergeError(f"weights must sum to 1 (an affine combination), got {sum(weights)}")
    out = Path(out)
    if out.exists():
        if not force:
            raise MergeError(f"{out} exists; pass --force to overwrite it")
        shutil.rmtree(out)
    checkpoints = [Checkpoint.open(p) for p in parents]
    _check_compatible(checkpoints)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        norms = _merge_tensors(checkpoints, weights, tmp, shard_bytes)
        _copy_auxiliary_files(checkpoints[0].path, tmp)
        provenance = {
            "kind": "merge", "weights": list(weights),
            "parents": [{"path": str(c.path.resolve()), "sha256": content_hash(c.path)}
                        for c in checkpoints],
            "dtype": norms["dtype"], "codefrontier_version": __version__,
            "torch_version": torch.__version__,
            "delta_norm": norms["delta"], "result_norm": norms["result"],
            **(extra_provenance or {}),
        }
        (tmp / "provenance.json").write_text(json.dumps(provenance, indent=2, sort_keys=True))
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log.info("merged %s with weights %s -> %s (|θ_last - θ_first| = %.4g, |θ| = %.4g)",
             [str(c.path) for c in checkpoints], list(weights), out, norms["delta"],
             norms["result"])
    return out


def _plan(checkpoint: Checkpoint) -> list[_TensorInfo]:
    """Every tensor's name, dtype and shape, shard by shard, from the headers alone."""
    infos = []
    by_shard: dict[str, list[str]] = {}
    for name, shard in checkpoint.weight_map.items():
        by_shard.setdefault(shard, []).append(name)
    for shard in sorted(by_shard):
        with safe_open(checkpoint.path / shard, framework="pt") as handle:
            for name in sorted(by_shard[shard]):
                piece = handle.get_slice(name)
                infos.append(_TensorInfo(name, piece.get_dtype(), tuple(piece.get_shape())))
    return infos


def _merge_tensors(checkpoints: Sequence[Checkpoint], weights: Sequence[float], folder: Path,
                   shard_bytes: int) -> dict:
    plan = _plan(checkpoints[0])
    writer = _StreamingShardWriter(folder, plan, shard_bytes)
    handles: dict[tuple[int, str], object] = {}
    # Tensors still to read from each (parent, shard): a shard is released once consumed.
    remaining = Counter((index, checkpoint.weight_map[info.name])
                        for info in plan for index, checkpoint in enumerate(checkpoints))
    delta_sq = result_sq = 0.0
    dtypes = set()
    try:
        for info in plan:
            tensors = []
            for index, checkpoint in enumerate(checkpoints):
                key = (index, checkpoint.weight_map[info.name])
                if key not in handles:
                    handles[key] = safe_open(checkpoint.path / key[1], framework="pt")
                tensors.append(handles[key].get_tensor(info.name))
                remaining[key] -= 1
                if not remaining[key]:
                    del handles[key]
            shapes = {tuple(t.shape) for t in tensors}
            kinds = {t.dtype for t in tensors}
            if len(shapes) > 1 or len(kinds) > 1:
                described = ", ".join(f"{c.path}: {tuple(t.shape)} {t.dtype}"
                                      for c, t in zip(checkpoints, tensors, strict=True))
                raise MergeError(f"tensor {info.name!r} differs between parents: {described}")
            as_float = [t.float() for t in tensors]  # once: combine and the norms share them
            merged = combine(as_float, weights)
            if not torch.isfinite(merged).all():
                raise MergeError(f"tensor {info.name!r} has non-finite values after merging")
            delta_sq += float(torch.dist(as_float[-1], as_float[0])) ** 2
            result_sq += float(torch.linalg.vector_norm(merged)) ** 2
            dtypes.add(str(tensors[0].dtype).removeprefix("torch."))
            writer.write(info.name, merged.to(tensors[0].dtype))
    finally:
        writer.close()
        handles.clear()
    return {"delta": math.sqrt(delta_sq), "result": math.sqrt(result_sq),
            "dtype": ",".join(sorted(dtypes))}
