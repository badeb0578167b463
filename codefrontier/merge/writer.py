"""Writing a merged save_pretrained folder: safetensors shards streamed piece by piece,
their index, and the parent's other files (config, tokenizer, chat template).

The shards' headers are known before any value is (names, dtypes and shapes come from
the parents), so each shard's header is written when the shard is opened and every piece
goes to disk as soon as it is merged: no shard is ever held in memory.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from codefrontier.merge.reader import INDEX_FILE, SINGLE_FILE, TensorInfo
from codefrontier.provenance import PROVENANCE_FILE

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
    return groups


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
    """Writes `tensors`, in that order and each from its first byte to its last, into
    shards `model-0000i-of-0000n.safetensors` of `folder`; `finish` writes the index."""

    def __init__(self, folder: Path, tensors: Sequence[TensorInfo], shard_bytes: int) -> None:
        self.folder = folder
        groups = group_into_shards(tensors, shard_bytes)
        files = [f"model-{i:05d}-of-{len(groups):05d}.safetensors"
                 for i in range(1, len(groups) + 1)]
        self._groups = groups
        self._files = files
        self._order = [info for group in groups for info in group]
        self._opens_shard = {group[0].name: index for index, group in enumerate(groups)}
        self.weight_map = {info.name: files[i] for i, group in enumerate(groups)
                           for info in group}
        self.total_bytes = sum(info.nbytes for info in tensors)
        self._position = 0  # index in _order of the tensor being written
        self._written = 0  # bytes of it written so far
        self._handle = None

    def write(self, info: TensorInfo, offset: int, data: memoryview) -> None:
        """The bytes of `info` from `offset` on; pieces must come in order."""
        if self._position >= len(self._order):
            raise RuntimeError(f"{info.name}: every tensor is already written")
        expected = self._order[self._position]
        if (info.name, offset) != (expected.name, self._written):
            raise RuntimeError(f"pieces must come in order: got {info.name} at byte {offset}, "
                               f"expected {expected.name} at byte {self._written}")
        if self._written == 0 and info.name in self._opens_shard:
            self._open_shard(self._opens_shard[info.name])
        self._handle.write(data)
        self._written += len(data)
        if self._written == expected.nbytes:
            self._position += 1
            self._written = 0

    def _open_shard(self, index: int) -> None:
        self.close()
        self._handle = open(self.folder / self._files[index], "wb")  # noqa: SIM115
        self._handle.write(safetensors_header(self._groups[index]))

    def finish(self) -> None:
        """Close the last shard and write the index; every tensor must be complete."""
        if self._position != len(self._order):
            raise RuntimeError(f"finished with {len(self._order) - self._position} tensors "
                               f"not (fully) written")
        self.close()
        index = {"metadata": {"total_size": self.total_bytes}, "weight_map": self.weight_map}
        (self.folder / INDEX_FILE).write_text(json.dumps(index, indent=2, sort_keys=True))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


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
