"""A merge that fails or is interrupted leaves no output folder, and no temporary one when
it can still clean up (a `kill -9` cannot: tests/test_merge.py covers that case)."""

import hashlib
import signal

import pytest
import torch
from test_merge import random_tensors, start_stalling_merge, write_sharded

from codefrontier.merge import MergeError, merge_alpha, merge_checkpoints


def leftovers(out):
    return sorted(out.parent.glob(f".{out.name}.tmp-*"))


def test_a_result_that_overflows_midway_leaves_nothing(tmp_path):
    big = torch.finfo(torch.bfloat16).max / 2
    lows, highs = random_tensors(1), random_tensors(2)
    lows["layer.0.weight"] = torch.full((16, 16), -big, dtype=torch.bfloat16)
    highs["layer.0.weight"] = torch.full((16, 16), big, dtype=torch.bfloat16)
    low, high = write_sharded(tmp_path / "low", lows), write_sharded(tmp_path / "high", highs)
    out = tmp_path / "out"
    with pytest.raises(MergeError, match=r"'layer\.0\.weight' has non-finite values"):
        merge_alpha(low, high, 3.0, out, shard_bytes=1000)  # several shards written before
    assert not out.exists() and leftovers(out) == []


def test_a_parent_that_cannot_be_read_leaves_nothing(tmp_path):
    low = write_sharded(tmp_path / "low", random_tensors(1))
    high = write_sharded(tmp_path / "high", random_tensors(2))
    last = sorted(high.glob("*.safetensors"))[-1]
    last.write_bytes(last.read_bytes()[:-10])  # the error comes from a reader thread
    out = tmp_path / "out"
    with pytest.raises(MergeError, match="truncated while reading"):
        merge_alpha(low, high, 0.5, out)
    assert not out.exists() and leftovers(out) == []


def test_a_failed_forced_merge_keeps_the_previous_output(tmp_path):
    low = write_sharded(tmp_path / "low", random_tensors(1))
    high = write_sharded(tmp_path / "high", random_tensors(2))
    out = merge_alpha(low, high, 0.5, tmp_path / "out")
    before = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in out.iterdir()}
    bad = write_sharded(tmp_path / "bad", random_tensors(2) | {"extra": torch.zeros(3)})
    with pytest.raises(MergeError, match="'extra' is in only one"):
        merge_checkpoints([low, bad], [0.5, 0.5], out, force=True)
    assert {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in out.iterdir()} == before
    assert leftovers(out) == []


@pytest.mark.parametrize("stall_in", ["any", "every"])
def test_an_interrupted_merge_removes_its_temporary_folder(tmp_path, stall_in):
    """Ctrl-C ends a merge and removes its temporary folder, also while a helper thread is
    blocked for good (it is left behind: the process must not wait for it)."""
    low = write_sharded(tmp_path / "low", random_tensors(1))
    high = write_sharded(tmp_path / "high", random_tensors(2))
    out = tmp_path / "out"
    process, temporary = start_stalling_merge(low, high, out, stall_in)
    try:
        process.send_signal(signal.SIGINT)  # Ctrl-C, or Snakemake stopping a job
        _, errors = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode != 0 and "KeyboardInterrupt" in errors
    assert not temporary.exists() and not out.exists() and leftovers(out) == []

