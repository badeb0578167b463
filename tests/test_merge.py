"""Streaming weight averaging on real sharded safetensors and a real transformers model."""

import hashlib
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from codefrontier.merge import INDEX_FILE, MergeError, merge_alpha, merge_checkpoints

ALPHAS = [-1.0, -0.5, 0.0, 0.25, 1.0, 1.3, 1.5, 3.0]


def write_sharded(folder, tensors: dict[str, torch.Tensor], per_shard: int = 2):
    """A checkpoint folder in the layout transformers writes: shards plus an index."""
    folder.mkdir(parents=True)
    names = sorted(tensors)
    groups = [names[i:i + per_shard] for i in range(0, len(names), per_shard)]
    weight_map = {}
    for index, group in enumerate(groups, start=1):
        shard = f"model-{index:05d}-of-{len(groups):05d}.safetensors"
        save_file({n: tensors[n] for n in group}, folder / shard, metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(group, shard))
    (folder / INDEX_FILE).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    (folder / "config.json").write_text(json.dumps({"architectures": ["Toy"], "use_cache": False}))
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": "{{ messages }}"}))
    return folder


def random_tensors(seed: int) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    shapes = {"embed.weight": (64, 16), "layer.0.weight": (16, 16), "layer.0.bias": (16,),
              "head.weight": (64, 16), "norm.weight": (16,)}
    return {n: torch.randn(s, generator=generator).to(torch.bfloat16) for n, s in shapes.items()}


def read_all(folder) -> dict[str, torch.Tensor]:
    weight_map = json.loads((folder / INDEX_FILE).read_text())["weight_map"]
    out = {}
    for name, shard in weight_map.items():
        with safe_open(folder / shard, framework="pt") as handle:
            out[name] = handle.get_tensor(name)
    return out


@pytest.fixture
def parents(tmp_path):
    low = write_sharded(tmp_path / "low", random_tensors(1))
    high = write_sharded(tmp_path / "high", random_tensors(2))
    return low, high


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_value_is_the_exact_combination_rounded_once(parents, tmp_path, alpha):
    low, high = parents
    out = merge_checkpoints([low, high], [1 - alpha, alpha], tmp_path / "out", shard_bytes=3000)
    merged, lows, highs = read_all(out), read_all(low), read_all(high)
    for name, value in merged.items():
        assert value.dtype == torch.bfloat16
        exact = alpha * highs[name].double() + (1 - alpha) * lows[name].double()
        rounded = exact.to(torch.bfloat16)
        # float32 arithmetic may flip a rounding at a tie: never more than one bf16 step
        ulp = torch.finfo(torch.bfloat16).eps * exact.abs().clamp_min(1e-30)
        assert ((value.double() - rounded.double()).abs() <= ulp * 1.01).all(), name
        # float32 rounding before the bf16 rounding moves ~1% of values by one step
        # when α extrapolates (1.3·h − 0.3·l cancels); bf16 arithmetic moves far more
        assert (value == rounded).float().mean() >= 0.97, name


def test_bf16_rounded_alpha_would_fail_the_check(parents):
    """The check above is strict enough to catch mergekit's bf16 arithmetic."""
    low, high = (read_all(p)["head.weight"] for p in parents)
    alpha_bf16 = torch.tensor(1.3, dtype=torch.bfloat16)
    naive = (alpha_bf16 * high + (1 - alpha_bf16) * low).to(torch.bfloat16)
    exact = 1.3 * high.double() - 0.3 * low.double()
    ulp = torch.finfo(torch.bfloat16).eps * exact.abs().clamp_min(1e-30)
    off = (naive.double() - exact.to(torch.bfloat16).double()).abs()
    assert (off > ulp * 1.01).any()  # more than one bf16 step away somewhere
    assert (naive == exact.to(torch.bfloat16)).float().mean() < 0.97


def test_output_is_sharded_complete_and_has_provenance(parents, tmp_path):
    low, high = parents
    out = merge_checkpoints([low, high], [-0.5, 1.5], tmp_path / "out", shard_bytes=3000)
    index = json.loads((out / INDEX_FILE).read_text())
    assert len(set(index["weight_map"].values())) > 1
    assert json.loads((out / "generation_config.json").read_text())["use_cache"] is True
    assert json.loads((out / "config.json").read_text())["use_cache"] is True
    assert (out / "tokenizer_config.json").exists()
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["weights"] == [-0.5, 1.5]
    assert [p["path"] for p in provenance["inputs"]] == [str(low.resolve()), str(high.resolve())]
    assert all(len(p["sha256"]) == 64 for p in provenance["inputs"])
    assert provenance["dtype"] == "bfloat16" and provenance["delta_norm"] > 0


def test_same_inputs_give_bit_identical_outputs(parents, tmp_path):
    low, high = parents
    digests = []
    for name in ("a", "b"):
        out = merge_checkpoints([low, high], [-0.3, 1.3], tmp_path / name)
        digests.append({f.name: hashlib.sha256(f.read_bytes()).hexdigest()
                        for f in sorted(out.glob("*.safetensors"))})
    assert digests[0] == digests[1]


def test_task_vector_form_is_an_affine_combination(tmp_path):
    """base + Σ w_i (θ_i − base) is the affine combination with the base weighted 1 − Σ w_i."""
    base = write_sharded(tmp_path / "base", random_tensors(0))
    a = write_sharded(tmp_path / "a", random_tensors(1))
    b = write_sharded(tmp_path / "b", random_tensors(2))
    out = merge_checkpoints([base, a, b], [1 - 0.5 - 1.0, 0.5, 1.0], tmp_path / "out")
    merged, tb, ta, tbb = read_all(out), read_all(base), read_all(a), read_all(b)
    name = "layer.0.weight"
    expected = (tb[name].float() + 0.5 * (ta[name].float() - tb[name].float())
                + 1.0 * (tbb[name].float() - tb[name].float())).to(torch.bfloat16)
    assert (merged[name].float() - expected.float()).abs().max() <= 0.02 * expected.abs().max()


def test_mismatched_parents_fail_naming_the_tensor(tmp_path):
    low = write_sharded(tmp_path / "low", random_tensors(1))
    other = random_tensors(2)
    other["layer.0.weight"] = torch.zeros(16, 8, dtype=torch.bfloat16)
    high = write_sharded(tmp_path / "high", other)
    with pytest.raises(MergeError, match=r"layer\.0\.weight.*\(16, 16\).*\(16, 8\)"):
        merge_checkpoints([low, high], [0.5, 0.5], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob(".out.tmp-*"))  # nothing half-written is left


def test_refuses_to_overwrite_without_force(parents, tmp_path):
    low, high = parents
    out = merge_alpha(low, high, 1.3, tmp_path / "out")
    with pytest.raises(MergeError, match="exists; pass --force"):
        merge_alpha(low, high, 1.3, out)
    assert merge_alpha(low, high, 0.5, out, force=True) == out
    assert json.loads((out / "provenance.json").read_text())["alpha"] == 0.5


def test_weights_must_sum_to_one(parents, tmp_path):
    with pytest.raises(MergeError, match="sum to 1"):
        merge_checkpoints(list(parents), [0.5, 0.6], tmp_path / "out")


@pytest.mark.slow
def test_a_merged_transformers_model_loads_and_gives_finite_logits(tmp_path):
    from transformers import AutoModelForCausalLM, Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(vocab_size=128, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         tie_word_embeddings=True)
    folders = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(config).to(torch.bfloat16)
        folder = tmp_path / f"m{seed}"
        model.save_pretrained(folder, max_shard_size="20KB")
        folders.append(folder)
    out = merge_checkpoints(folders, [-0.3, 1.3], tmp_path / "merged", shard_bytes=20_000)
    merged = AutoModelForCausalLM.from_pretrained(out)
    logits = merged(torch.tensor([[1, 2, 3, 4]])).logits
    assert torch.isfinite(logits).all()
    assert merged.config.tie_word_embeddings


def test_merge_alpha_is_the_two_parent_affine_combination(parents, tmp_path):
    low, high = parents
    by_alpha = merge_alpha(low, high, 1.3, tmp_path / "by-alpha")
    by_weights = merge_checkpoints([low, high], [1 - 1.3, 1.3], tmp_path / "by-weights")
    for shard in sorted(by_weights.glob("*.safetensors")):
        assert shard.read_bytes() == (by_alpha / shard.name).read_bytes()


def test_integer_buffers_are_copied_and_must_agree(tmp_path):
    tensors = random_tensors(1) | {"position_ids": torch.arange(8)}
    low = write_sharded(tmp_path / "low", tensors)
    high = write_sharded(tmp_path / "high", random_tensors(2) | {"position_ids": torch.arange(8)})
    merged = read_all(merge_checkpoints([low, high], [-0.3, 1.3], tmp_path / "out"))
    assert torch.equal(merged["position_ids"], torch.arange(8))
    other = write_sharded(tmp_path / "other", random_tensors(2) | {"position_ids": torch.zeros(8, dtype=torch.int64)})
    with pytest.raises(MergeError, match="cannot be averaged"):
        merge_checkpoints([low, other], [0.5, 0.5], tmp_path / "bad")


def test_parent_hashes_are_recorded_and_cached(parents, tmp_path):
    from codefrontier.base.provenance import HashCache, checkpoint_sha256

    low, high = parents
    out = merge_checkpoints([low, high], [0.5, 0.5], tmp_path / "out")
    recorded = [p["sha256"] for p in json.loads((out / "provenance.json").read_text())["inputs"]]
    assert recorded == [checkpoint_sha256(low, cached=False), checkpoint_sha256(high, cached=False)]
    shard = sorted(low.glob("*.safetensors"))[0]
    cache = HashCache(tmp_path / "cache.sqlite")
    first = cache.sha256(shard)
    data = bytearray(shard.read_bytes())
    data[-1] ^= 1
    before = shard.stat().st_mtime_ns
    shard.write_bytes(bytes(data))
    # kernel timestamps are coarse (a jiffy): make sure this rewrite is visible in the mtime
    os.utime(shard, ns=(before + 10**7, before + 10**7))
    assert cache.sha256(shard) != first


# A real merge (two workers: the calling thread and a helper) that stops for good at its
# second piece, whichever worker takes it (the other goes on until it is done, or waits
# for it), or with "every" at the first piece each worker takes (a signal ends the
# calling thread's wait, nothing ends the helper's), so that a test can kill it while
# its temporary folder exists, however fast or slow the machine is. It takes Ctrl-C as
# a terminal's foreground process does: tests started in the background by a shell
# without job control (`nohup make test &`) inherit SIGINT ignored, and so would it.
STALLING_MERGE = """
import itertools, signal, sys, threading
signal.signal(signal.SIGINT, signal.default_int_handler)
import codefrontier.merge.pipeline as pipeline
from codefrontier.merge import merge_checkpoints
combine, calls = pipeline.combine_piece, itertools.count()
def combine_or_stall(*args, **kwargs):
    if sys.argv[4] == "every" or next(calls) == 1:
        threading.Event().wait()
    return combine(*args, **kwargs)
pipeline.combine_piece = combine_or_stall
pipeline.default_workers = lambda: 2
merge_checkpoints(sys.argv[1:3], [0.5, 0.5], sys.argv[3])
"""


def start_stalling_merge(low, high, out, stall_in: str = "any") -> tuple[subprocess.Popen, Path]:
    """A merge process to `out` that has written shards into its temporary folder and
    stalls in one worker ("any"), or in every one ("every")."""
    process = subprocess.Popen([sys.executable, "-c", STALLING_MERGE, str(low), str(high),
                                str(out), stall_in], stderr=subprocess.PIPE, text=True)
    temporary = out.with_name(f".{out.name}.tmp-{process.pid}")
    deadline = time.monotonic() + 300
    while not list(temporary.glob("*.safetensors")):
        if process.poll() is not None:
            raise AssertionError(f"the stalling merge exited: {process.stderr.read()}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the stalling merge never wrote into {temporary}")
        time.sleep(0.05)
    return process, temporary


def test_a_merge_removes_what_killed_merges_left_and_keeps_running_ones(parents, tmp_path,
                                                                        caplog):
    low, high = parents
    out = tmp_path / "out"
    killed, leftover = start_stalling_merge(low, high, out)
    running, in_progress = start_stalling_merge(low, high, out)
    try:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert leftover.is_dir()  # kill -9 leaves the half-written folder behind
        assert not out.exists()  # but nothing at the output's name
        with caplog.at_level(logging.INFO, logger="codefrontier.merge"):
            merge_checkpoints([low, high], [0.5, 0.5], out)
        assert not leftover.exists() and str(leftover) in caplog.text
        assert list(in_progress.glob("*.safetensors"))
        assert (out / INDEX_FILE).exists()
    finally:
        for process in (killed, running):
            process.kill()
            process.wait()
            process.stderr.close()


def test_provenance_records_the_alpha_asked_for(parents, tmp_path):
    out = merge_alpha(*parents, 1.3, tmp_path / "out", extra_provenance={"setting": "k2"})
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["alpha"] == 1.3
    assert provenance["weights"] == [1 - 1.3, 1.3]
    assert provenance["setting"] == "k2" and provenance["kind"] == "merge"
    assert {"torch_version", "codefrontier_version", "code_version"} <= provenance.keys()


@pytest.mark.parametrize("alpha", [float("nan"), float("inf"), 1e308])
def test_merging_at_an_alpha_that_is_not_a_usable_number_names_alpha(parents, tmp_path, alpha):
    with pytest.raises(MergeError, match=rf"α must be a finite number.*got {re.escape(repr(alpha))}"):
        merge_alpha(*parents, alpha, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_merge_not_kept_is_verified_through_its_record_and_remade_bit_for_bit(tmp_path,
                                                                               monkeypatch):
    """`keep.merges: false`: the folder goes once sampled, its record stays. The audit of
    a sample made from it checks the record's content hash and walks on into the parents;
    the same merge command remakes the folder with the recorded hash."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from codefrontier.base.provenance import (
        PARQUET_KEY,
        checkpoint_sha256,
        read_provenance,
        record,
    )
    from codefrontier.cli import main
    from codefrontier.pipeline.audit import audit

    monkeypatch.chdir(tmp_path)
    runs = Path("results/m/reasoning/rl")
    write_sharded(runs / "k2", random_tensors(1))
    write_sharded(runs / "kinf", random_tensors(2))
    merged = Path("results/m/reasoning/merge/a1.5")
    command = ["merge", "--low", str(runs / "k2"), "--high", str(runs / "kinf"), "--alpha=1.5",
               "--out", str(merged), "--record", f"{merged}.json", "--workers", "2"]
    assert main(command) == 0
    kept = json.loads(Path(f"{merged}.json").read_text())
    assert kept["checkpoint_sha256"] == checkpoint_sha256(merged) and kept["alpha"] == 1.5
    assert read_provenance(f"{merged}.json")["delta_norm"] == kept["delta_norm"]
    samples = Path("results/m/reasoning/a1.5/samples.parquet")
    samples.parent.mkdir(parents=True)
    metadata = {PARQUET_KEY.encode(): json.dumps(record([merged])).encode()}
    pq.write_table(pa.table({"x": [1]}).replace_schema_metadata(metadata), samples)
    shutil_rmtree(merged)
    findings, checked = audit(samples)
    assert checked == 4  # samples, the record, both parents (hand-made: no provenance)
    assert sorted((Path(f.path).name, f.problem) for f in findings) == [
        ("k2", "no provenance"), ("kinf", "no provenance")]
    Path(runs / "kinf" / "config.json").write_text("{}")  # a parent changed after the merge
    assert any("kinf changed after it was used" in str(f) for f in audit(samples)[0])
    Path(runs / "kinf" / "config.json").write_text(
        json.dumps({"architectures": ["Toy"], "use_cache": False}))
    assert main(command[:-2]) == 0  # remade with one worker: the same bytes
    assert checkpoint_sha256(merged) == kept["checkpoint_sha256"]


def shutil_rmtree(path):
    import shutil

    shutil.rmtree(path)
