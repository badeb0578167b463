"""Reading a save_pretrained folder's weights: safetensors headers, and tensor bytes read
with pread into buffers the caller owns.

No memory map: the bytes of a mapped file count toward this process's resident memory
as they are touched (a 32B parent is 64 GB), and each first touch is a page fault.
pread copies from the page cache straight into a reused buffer, releases the GIL while
it does (so reading overlaps the arithmetic), and reads any byte range of a tensor, so a
large tensor is read piece by piece.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from codefrontier.merge.errors import MergeError

SINGLE_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"

TORCH_DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32,
                "F64": torch.float64, "I64": torch.int64, "I32": torch.int32,
                "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dtype: str  # the safetensors name, e.g. "BF16"
    shape: tuple[int, ...]

    @property
    def torch_dtype(self) -> torch.dtype:
        return TORCH_DTYPES[self.dtype]

    @property
    def itemsize(self) -> int:
        return self.torch_dtype.itemsize

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize

    def describe(self) -> str:
        return f"{self.shape} {str(self.torch_dtype).removeprefix('torch.')}"


class SafetensorsFile:
    """One .safetensors file: its header, parsed when opened, and byte ranges of its
    tensors read on demand."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)
        try:
            self._infos, self._offsets, self._data_start = self._parse_header()
        except BaseException:
            os.close(self._fd)
            raise
        # a larger readahead window for the cold-cache case; no effect on cached pages
        os.posix_fadvise(self._fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)

    def _parse_header(self) -> tuple[list[TensorInfo], dict[str, tuple[int, int]], int]:
        try:
            (length,) = struct.unpack("<Q", os.pread(self._fd, 8, 0))
            header = json.loads(os.pread(self._fd, length, 8))
            header.pop("__metadata__", None)
            entries = sorted(header.items(), key=lambda item: item[1]["data_offsets"][0])
            infos = [TensorInfo(name, entry["dtype"], tuple(entry["shape"]))
                     for name, entry in entries]
            offsets = {name: tuple(entry["data_offsets"]) for name, entry in entries}
        except (struct.error, ValueError, KeyError, TypeError, AttributeError) as error:
            raise MergeError(f"{self.path}: not a safetensors file ({error!r})") from error
        for info in infos:
            start, end = offsets[info.name]
            if info.dtype not in TORCH_DTYPES or end - start != info.nbytes:
                raise MergeError(f"{self.path}: tensor {info.name!r} is {info.dtype} "
                                 f"{info.shape} in {end - start} bytes: not readable here")
        return infos, offsets, 8 + length

    def tensors(self) -> list[TensorInfo]:
        """Every tensor of the file, in the order of their bytes in it."""
        return list(self._infos)

    def read_into(self, name: str, offset: int, view: memoryview) -> None:
        """Fill `view` with the tensor's bytes from `offset` (in bytes) on."""
        start, end = self._offsets[name]
        if offset < 0 or offset + len(view) > end - start:
            raise ValueError(f"bytes {offset}..{offset + len(view)} are outside {name!r}")
        position = self._data_start + start + offset
        done = 0
        while done < len(view):
            read = os.preadv(self._fd, [view[done:]], position + done)
            if read == 0:
                raise MergeError(f"{self.path}: truncated while reading {name!r}")
            done += read

    def close(self) -> None:
        os.close(self._fd)


class WeightFolder:
    """The weights of a save_pretrained folder (sharded with an index, or one file):
    every shard opened and its header read once, up front; tensors read by name."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        weight_map = self._weight_map()
        self._files: dict[str, SafetensorsFile] = {}
        try:
            for shard in sorted(set(weight_map.values())):
                self._files[shard] = SafetensorsFile(self.path / shard)
            self._shard_of = weight_map
            self._infos = {info.name: info for shard, file in self._files.items()
                           for info in file.tensors() if weight_map.get(info.name) == shard}
            missing = weight_map.keys() - self._infos.keys()
            if missing:
                raise MergeError(f"{self.path}: the index lists {sorted(missing)[0]!r}, which "
                                 f"its shard does not hold ({len(missing)} such tensors)")
        except BaseException:
            self.close()
            raise

    def _weight_map(self) -> dict[str, str]:
        if (self.path / INDEX_FILE).exists():
            return json.loads((self.path / INDEX_FILE).read_text())["weight_map"]
        if (self.path / SINGLE_FILE).exists():
            single = SafetensorsFile(self.path / SINGLE_FILE)
            single.close()
            return {info.name: SINGLE_FILE for info in single.tensors()}
        raise MergeError(f"{self.path}: no {SINGLE_FILE} or {INDEX_FILE}: "
                         f"not a checkpoint folder")

    def tensors(self) -> list[TensorInfo]:
        """Every tensor, shard by shard and in file order within a shard, so that reading
        them in this order reads each file front to back."""
        return list(self._infos.values())

    def names(self) -> set[str]:
        return set(self._infos)

    def info(self, name: str) -> TensorInfo:
        return self._infos[name]

    def read_into(self, name: str, offset: int, view: memoryview) -> None:
        self._files[self._shard_of[name]].read_into(name, offset, view)

    def config(self) -> dict:
        config = self.path / "config.json"
        return json.loads(config.read_text()) if config.exists() else {}

    def close(self) -> None:
        for file in self._files.values():
            file.close()
        self._files = {}

    def __enter__(self) -> WeightFolder:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def check_same_tensors(folders: Sequence[WeightFolder]) -> None:
    """The parents must hold the same tensor names with the same dtypes and shapes, and
    declare the same architecture: checked from the headers, before anything is read."""
    first = folders[0]
    for other in folders[1:]:
        differing = first.names() ^ other.names()
        if differing:
            raise MergeError(f"tensor {sorted(differing)[0]!r} is in only one of {first.path} "
                             f"and {other.path} ({len(differing)} names differ)")
        for info in first.tensors():
            theirs = other.info(info.name)
            if (theirs.dtype, theirs.shape) != (info.dtype, info.shape):
                raise MergeError(f"tensor {info.name!r} differs between parents: {first.path}: "
                                 f"{info.describe()}, {other.path}: {theirs.describe()}")
        ours, theirs = first.config().get("architectures"), other.config().get("architectures")
        if ours != theirs:
            raise MergeError(f"architectures differ: {first.path} {ours}, {other.path} {theirs}")
