"""The merge's pipeline: pieces read, combined and written by several workers, whatever
the piece size and the number of workers."""

import hashlib

import pytest
import torch
from test_merge import random_tensors, read_all, write_sharded

from codefrontier.merge import WeightFolder, alpha_weights
from codefrontier.merge.pipeline import stream_merge
from codefrontier.merge.writer import ShardWriter


def merged_shards(low, high, target, piece_bytes, workers, alpha=1.3):
    """Shard name -> sha256 of a merge streamed with these settings."""
    target.mkdir()
    with WeightFolder(low) as lows, WeightFolder(high) as highs:
        tensors = lows.tensors()
        writer = ShardWriter(target, tensors, shard_bytes=3000)
        totals = stream_merge([lows, highs], alpha_weights(alpha), writer, tensors,
                              piece_bytes=piece_bytes, workers=workers)
        writer.finish()
    assert totals.dtypes == {"bfloat16"} and totals.delta_sq > 0
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(target.glob("*.safetensors"))}


@pytest.fixture
def parents(tmp_path):
    return (write_sharded(tmp_path / "low", random_tensors(1)),
            write_sharded(tmp_path / "high", random_tensors(2)))


@pytest.mark.parametrize(("piece_bytes", "workers"), [(2, 1), (2, 4), (100, 2), (333, 3),
                                                      (1000, 8)])
def test_any_piece_size_and_number_of_workers_write_the_same_bytes(parents, tmp_path,
                                                                   piece_bytes, workers):
    whole = merged_shards(*parents, tmp_path / "whole", piece_bytes=1 << 20, workers=1)
    assert merged_shards(*parents, tmp_path / "pieces", piece_bytes, workers) == whole


def test_pieces_hold_the_combination_of_the_parents(parents, tmp_path):
    merged_shards(*parents, tmp_path / "out", piece_bytes=100, workers=2, alpha=-0.5)
    merged, lows, highs = read_all(tmp_path / "out"), read_all(parents[0]), read_all(parents[1])
    for name, value in merged.items():
        expected = torch.lerp(lows[name].float(), highs[name].float(), -0.5)
        assert torch.equal(value, expected.to(torch.bfloat16)), name


def test_torch_threads_are_restored_after_a_merge(parents, tmp_path):
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        merged_shards(*parents, tmp_path / "out", piece_bytes=100, workers=2)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
