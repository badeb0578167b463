"""The merge's reader and writer on real safetensors files: what the writer streams
piece by piece, safetensors and the reader read back, and what safetensors writes, the
reader reads."""

import json
import struct

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from codefrontier.merge import INDEX_FILE, SINGLE_FILE, MergeError, WeightFolder
from codefrontier.merge.pipeline import cut_into_pieces
from codefrontier.merge.reader import TensorInfo, check_same_tensors
from codefrontier.merge.writer import ShardWriter

TENSORS = {
    "embed.weight": torch.randn(300, 7, generator=torch.Generator().manual_seed(0))
    .to(torch.bfloat16),
    "norm.weight": torch.randn(7, generator=torch.Generator().manual_seed(1)),
    "position_ids": torch.arange(40),
    "empty": torch.zeros(0, 4, dtype=torch.float16),
    "mask": torch.arange(9) % 2 == 0,
}
SAFETENSORS_NAMES = {torch.bfloat16: "BF16", torch.float32: "F32", torch.int64: "I64",
                     torch.float16: "F16", torch.bool: "BOOL"}


def infos(tensors):
    return [TensorInfo(name, SAFETENSORS_NAMES[t.dtype], tuple(t.shape))
            for name, t in tensors.items()]


def stream_into(folder, tensors, piece_bytes, shard_bytes):
    """Write `tensors` with the ShardWriter in pieces, as a merge does, last piece first
    (workers finish in any order)."""
    folder.mkdir(exist_ok=True)
    writer = ShardWriter(folder, infos(tensors), shard_bytes)
    for piece in reversed(list(cut_into_pieces(infos(tensors), piece_bytes))):
        flat = tensors[piece.tensor.name].reshape(-1)[piece.start:piece.stop]
        writer.write(piece.tensor, piece.byte_offset, memoryview(flat.view(torch.uint8).numpy()))
    writer.finish()
    return writer


def read_back(folder, tensors, piece_bytes):
    """Every tensor of a folder read with WeightFolder.read_into, piece by piece."""
    out = {}
    with WeightFolder(folder) as weights:
        for info in weights.tensors():
            buffer = torch.empty(info.nbytes, dtype=torch.uint8)
            for piece in cut_into_pieces([info], piece_bytes):
                weights.read_into(info.name, piece.byte_offset,
                                  memoryview(buffer[piece.byte_offset:][:piece.nbytes].numpy()))
            out[info.name] = buffer.view(info.torch_dtype).view(info.shape)
    return out


@pytest.mark.parametrize("piece_bytes", [3, 64, 1 << 20])
def test_streamed_shards_are_what_safetensors_reads(tmp_path, piece_bytes):
    writer = stream_into(tmp_path / "out", TENSORS, piece_bytes, shard_bytes=1000)
    index = json.loads((tmp_path / "out" / INDEX_FILE).read_text())
    assert index["weight_map"] == writer.weight_map and set(index["weight_map"]) == set(TENSORS)
    assert index["metadata"]["total_size"] == sum(t.numel() * t.element_size()
                                                  for t in TENSORS.values())
    shards = sorted({*index["weight_map"].values()})
    assert len(shards) > 1
    for shard in shards:
        file = tmp_path / "out" / shard
        (length,) = struct.unpack("<Q", file.read_bytes()[:8])
        assert length % 8 == 0  # the data starts 8-byte aligned
        with safe_open(file, framework="pt") as handle:
            assert handle.metadata() == {"format": "pt"}
            for name in handle.keys():  # noqa: SIM118 (safe_open is not a mapping)
                assert torch.equal(handle.get_tensor(name), TENSORS[name]), name
                assert index["weight_map"][name] == shard


@pytest.mark.parametrize("piece_bytes", [5, 100, 1 << 20])
def test_the_reader_reads_streamed_shards_back_piece_by_piece(tmp_path, piece_bytes):
    stream_into(tmp_path / "out", TENSORS, 64, shard_bytes=1000)
    back = read_back(tmp_path / "out", TENSORS, piece_bytes)
    assert back.keys() == TENSORS.keys()
    for name, tensor in TENSORS.items():
        assert back[name].dtype == tensor.dtype and torch.equal(back[name], tensor), name


def test_the_reader_reads_what_safetensors_writes_single_and_sharded(tmp_path):
    (tmp_path / "single").mkdir()
    save_file(TENSORS, tmp_path / "single" / SINGLE_FILE, metadata={"format": "pt"})
    (tmp_path / "sharded").mkdir()
    names = sorted(TENSORS)
    weight_map = {}
    for index, group in enumerate([names[:2], names[2:]], start=1):
        shard = f"model-{index:05d}-of-00002.safetensors"
        save_file({n: TENSORS[n] for n in group}, tmp_path / "sharded" / shard)
        weight_map |= dict.fromkeys(group, shard)
    (tmp_path / "sharded" / INDEX_FILE).write_text(json.dumps({"weight_map": weight_map}))
    for folder in ("single", "sharded"):
        back = read_back(tmp_path / folder, TENSORS, 17)
        assert all(torch.equal(back[n], t) for n, t in TENSORS.items()), folder


def test_tensors_come_in_file_order_shard_by_shard(tmp_path):
    writer = stream_into(tmp_path / "out", TENSORS, 64, shard_bytes=1000)
    with WeightFolder(tmp_path / "out") as weights:
        order = [info.name for info in weights.tensors()]
    assert order == [info.name for info in infos(TENSORS)]  # the order they were written in
    assert [writer.weight_map[name] for name in order] == sorted(writer.weight_map[n]
                                                                   for n in order)


def test_the_writer_refuses_bytes_outside_a_tensor_and_an_unfinished_output(tmp_path):
    writer = ShardWriter(tmp_path, infos(TENSORS), 1000)
    first = infos(TENSORS)[0]
    with pytest.raises(ValueError, match=r"outside 'embed\.weight'"):
        writer.write(first, first.nbytes - 4, memoryview(b"\0" * 10))
    writer.write(first, 0, memoryview(b"\0" * 10))
    with pytest.raises(RuntimeError, match=f"10 of {writer.total_bytes} bytes"):
        writer.finish()
    writer.close()
    assert not (tmp_path / INDEX_FILE).exists()


def test_a_truncated_shard_fails_naming_the_tensor(tmp_path):
    stream_into(tmp_path / "out", TENSORS, 64, shard_bytes=1 << 20)
    (shard,) = (tmp_path / "out").glob("*.safetensors")
    shard.write_bytes(shard.read_bytes()[:-20])
    with WeightFolder(tmp_path / "out") as weights:
        last = weights.tensors()[-1]
        with pytest.raises(MergeError, match=f"truncated while reading '{last.name}'"):
            weights.read_into(last.name, 0, memoryview(bytearray(last.nbytes)))


def test_a_file_that_is_not_safetensors_or_not_a_checkpoint_is_refused(tmp_path):
    with pytest.raises(MergeError, match="not a checkpoint folder"):
        WeightFolder(tmp_path)
    (tmp_path / SINGLE_FILE).write_bytes(b"\x10\0\0\0\0\0\0\0not json at all!")
    with pytest.raises(MergeError, match="not a safetensors file"):
        WeightFolder(tmp_path)


def test_parents_with_other_names_or_dtypes_are_refused_before_reading(tmp_path):
    stream_into(tmp_path / "a", TENSORS, 64, 1000)
    stream_into(tmp_path / "b", {**TENSORS, "norm.weight": TENSORS["norm.weight"].half()},
                64, 1000)
    stream_into(tmp_path / "c", {**TENSORS, "extra": torch.zeros(2)}, 64, 1000)
    with WeightFolder(tmp_path / "a") as a, WeightFolder(tmp_path / "b") as b, \
            WeightFolder(tmp_path / "c") as c:
        with pytest.raises(MergeError, match=r"'norm.weight' differs.*\(7,\) float32.*"
                                             r"\(7,\) float16"):
            check_same_tensors([a, b])
        with pytest.raises(MergeError, match="'extra' is in only one of"):
            check_same_tensors([a, c])
