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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save_file

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


class _ShardWriter:
    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder, self.max_bytes = folder, max_bytes
        self.pending: dict[str, torch.Tensor] = {}
        self.pending_bytes = 0
        self.shards: list[dict[str, torch.Tensor]] = []
        self.weight_map: dict[str, str] = {}
        self.total_bytes = 0
        self.count = 0

    def add(self, name: str, tensor: torch.Tensor) -> None:
        size = tensor.numel() * tensor.element_size()
        if self.pending and self.pending_bytes + size > self.max_bytes:
            self._flush()
        self.pending[name] = tensor
        self.pending_bytes += size
        self.total_bytes += size

    def _flush(self) -> None:
        self.count += 1
        name = f"model-{self.count:05d}.safetensors"
        save_file(self.pending, self.folder / name, metadata={"format": "pt"})
        self.weight_map.update(dict.fromkeys(self.pending, name))
        self.pending, self.pending_bytes = {}, 0

    def close(self) -> None:
        if self.pending:
            self._flush()
        total = self.count
        renamed = {}
        for index in range(1, total + 1):
            old = self.folder / f"model-{index:05d}.safetensors"
            new = f"model-{index:05d}-of-{total:05d}.safetensors"
            old.rename(self.folder / new)
            renamed[old.name] = new
        self.weight_map = {k: renamed[v] for k, v in self.weight_map.items()}
        index = {"metadata": {"total_size": self.total_bytes}, "weight_map": self.weight_map}
        (self.folder / INDEX_FILE).write_text(json.dumps(index, indent=2, sort_keys=True))


def combine(tensors: Sequence[torch.Tensor], weights: Sequence[float]) -> torch.Tensor:
    """Σ w_i t_i in float32, returned in float32. Two tensors use lerp (one fused op)."""
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


def _merge_tensors(checkpoints: Sequence[Checkpoint], weights: Sequence[float], folder: Path,
                   shard_bytes: int) -> dict:
    writer = _ShardWriter(folder, shard_bytes)
    handles: dict[tuple[int, str], object] = {}
    delta_sq = result_sq = 0.0
    dtypes = set()
    try:
        # Shard by shard, so each input shard is read once and can be released.
        for name in sorted(checkpoints[0].weight_map, key=lambda n: (checkpoints[0].weight_map[n], n)):
            tensors = []
            for index, checkpoint in enumerate(checkpoints):
                key = (index, checkpoint.weight_map[name])
                if key not in handles:
                    handles[key] = safe_open(checkpoint.path / key[1], framework="pt")
                tensors.append(handles[key].get_tensor(name))
            shapes = {tuple(t.shape) for t in tensors}
            kinds = {t.dtype for t in tensors}
            if len(shapes) > 1 or len(kinds) > 1:
                described = ", ".join(f"{c.path}: {tuple(t.shape)} {t.dtype}"
                                      for c, t in zip(checkpoints, tensors, strict=True))
                raise MergeError(f"tensor {name!r} differs between parents: {described}")
            merged = combine(tensors, weights)
            if not torch.isfinite(merged).all():
                raise MergeError(f"tensor {name!r} has non-finite values after merging")
            delta_sq += float((tensors[-1].float() - tensors[0].float()).pow(2).sum())
            result_sq += float(merged.pow(2).sum())
            dtypes.add(str(tensors[0].dtype).removeprefix("torch."))
            writer.add(name, merged.to(tensors[0].dtype))
        writer.close()
    finally:
        handles.clear()
    return {"delta": math.sqrt(delta_sq), "result": math.sqrt(result_sq),
            "dtype": ",".join(sorted(dtypes))}
