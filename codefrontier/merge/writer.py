"""Writing a merged save_pretrained folder: safetensors shards, their index, and the
parent's other files (config, tokenizer, chat template).

The shards' headers are known before any value is (names, dtypes and shapes come from
the parents), so every shard is created with its header up front, every tensor's place
in it is known, and each merged piece is written at its place with pwrite, from any
thread and in any order, as soon as it is merged: no shard is ever held in memory.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

from codefrontier.base.provenance import PROVENANCE_FILE
from codefrontier.merge.reader import INDEX_FILE, SINGLE_FILE, TensorInfo

DEFAULT_SHARD_BYTES = 2 * 2**30


def group_into_shards(tensors: Sequence[TensorInfo],
                      shard_bytes: int) -> list[list[TensorInfo]]:
    """Consecutive tensors, a new shard whenever the next would pass `shard_bytes` (a
    tensor larger than that gets a shard of its own)."""
    groups: list[list[TensorInfo]] = [[]]
    size = 0
    for info in tensors:
        if groups[-1] and size + info.nbytes > shard_bytes:
            groups.append([])
            size = 0
        groups[-1].append(info)
        size += info.nbytes
    return [group for group in groups if group]


def safetensors_header(group: Sequence[TensorInfo]) -> bytes:
    """The length-prefixed JSON header of a shard holding `group` in that order."""
    header: dict = {"__metadata__": {"format": "pt"}}
    offset = 0
    for info in group:
        header[info.name] = {"dtype": info.dtype, "shape": list(info.shape),
                             "data_offsets": [offset, offset + info.nbytes]}
        offset += info.nbytes
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)  # the format aligns the data to 8 bytes
    return len(encoded).to_bytes(8, "little") + encoded


class ShardWriter:
    """Shards `model-0000i-of-0000n.safetensors` of `folder` holding `tensors` in that
    order, created with their headers at once; `write` puts bytes of a tensor at their
    place, `finish` checks that every byte came and writes the index."""

    def __init__(self, folder: Path, tensors: Sequence[TensorInfo], shard_bytes: int) -> None:
        groups = group_into_shards(tensors, shard_bytes)
        files = [f"model-{i:05d}-of-{len(groups):05d}.safetensors"
                 for i in range(1, len(groups) + 1)]
        self.folder = folder
        self.weight_map = {info.name: files[i] for i, group in enumerate(groups)
                           for info in group}
        self.total_bytes = sum(info.nbytes for info in tensors)
        self._places: dict[str, tuple[int, int]] = {}  # name -> (fd, where its data starts)
        self._fds: list[int] = []
        self._written = 0
        self._lock = threading.Lock()
        try:
            for file, group in zip(files, groups, strict=True):
                self._create(folder / file, group)
        except BaseException:
            self.close()
            raise

    def _create(self, path: Path, group: Sequence[TensorInfo]) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        self._fds.append(fd)
        header = safetensors_header(group)
        pwrite_all(fd, memoryview(header), 0)
        start = len(header)
        for info in group:
            self._places[info.name] = (fd, start)
            start += info.nbytes

    def write(self, info: TensorInfo, offset: int, data: memoryview) -> None:
        """Bytes of `info` from `offset` (in bytes) on."""
        if offset < 0 or offset + len(data) > info.nbytes:
            raise ValueError(f"bytes {offset}..{offset + len(data)} are outside {info.name!r}")
        fd, start = self._places[info.name]
        pwrite_all(fd, data, start + offset)
        with self._lock:
            self._written += len(data)

    def finish(self) -> None:
        """Close the shards and write the index, once as many bytes came as the tensors
        hold."""
        if self._written != self.total_bytes:
            raise RuntimeError(f"finished with {self._written} of {self.total_bytes} bytes "
                               f"written")
        self.close()
        index = {"metadata": {"total_size": self.total_bytes}, "weight_map": self.weight_map}
        (self.folder / INDEX_FILE).write_text(json.dumps(index, indent=2, sort_keys=True))

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []


def pwrite_all(fd: int, data: memoryview, position: int) -> None:
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], position + done)


WEIGHT_FILES = {SINGLE_FILE, INDEX_FILE}


def copy_auxiliary_files(source: Path, target: Path) -> None:
    """Config, tokenizer, chat template and any other non-weight file of the first parent;
    a generation config that keeps the KV cache on (trainer checkpoints turn it off)."""
    for file in source.iterdir():
        if file.is_file() and file.name not in WEIGHT_FILES and file.suffix != ".safetensors" \
                and file.name != PROVENANCE_FILE:
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
