"""Merge speed and memory: codefrontier merge against the I/O floor and mergekit.

Builds (once, under --workdir) a pair of Qwen2-shaped bf16 checkpoints of about
--params parameters, sharded like save_pretrained output, then times in fresh
processes, start-up included:

  floor       read both parents' shard files and write one output's worth of
              bytes (16 MiB buffers, no arithmetic): what any merge must pay
  ours        `codefrontier merge --low L --high H --alpha A --out O`
  ours, hashed parents
              the same after the parents' content hashes are cached (the usual
              case: every α after the first)
  ours, N α   one `codefrontier merge --alpha a1 .. aN` pass, per output
  mergekit    `mergekit-yaml` linear merge, normalize off, dtype float32,
              out_dtype bfloat16 (pip install mergekit; skipped if absent)

Peak RSS is the child's ru_maxrss, which counts file-backed pages it maps.
The parents stay in the page cache (24 GiB RAM here), so the floor is memory
bandwidth, not disk: the hardest case for the ratio. Median of --repeats.

    python benchmarks/merge.py [--params 1.2e9] [--repeats 3] [--alphas 1.3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import torch

HIDDEN, KV_HEADS, HEADS, INTERMEDIATE, VOCAB = 2048, 4, 16, 5632, 32000
SHARD_BYTES = 1 << 30

FLOOR = """
import sys
from pathlib import Path
inputs, out = [Path(p) for p in sys.argv[1:-1]], Path(sys.argv[-1])
buffer = bytearray(1 << 24)
view = memoryview(buffer)
written = 0
with open(out, "wb", buffering=0) as sink:
    for index, file in enumerate(inputs):
        with open(file, "rb", buffering=0) as source:
            while read := source.readinto(buffer):
                if index % 2 == 0:  # write one parent's worth of bytes
                    sink.write(view[:read])
"""


def layer_shapes(layers: int) -> dict[str, tuple[int, ...]]:
    kv = HIDDEN // HEADS * KV_HEADS
    shapes = {"model.embed_tokens.weight": (VOCAB, HIDDEN), "lm_head.weight": (VOCAB, HIDDEN),
              "model.norm.weight": (HIDDEN,)}
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes |= {
            p + "self_attn.q_proj.weight": (HIDDEN, HIDDEN), p + "self_attn.q_proj.bias": (HIDDEN,),
            p + "self_attn.k_proj.weight": (kv, HIDDEN), p + "self_attn.k_proj.bias": (kv,),
            p + "self_attn.v_proj.weight": (kv, HIDDEN), p + "self_attn.v_proj.bias": (kv,),
            p + "self_attn.o_proj.weight": (HIDDEN, HIDDEN),
            p + "mlp.gate_proj.weight": (INTERMEDIATE, HIDDEN),
            p + "mlp.up_proj.weight": (INTERMEDIATE, HIDDEN),
            p + "mlp.down_proj.weight": (HIDDEN, INTERMEDIATE),
            p + "input_layernorm.weight": (HIDDEN,), p + "post_attention_layernorm.weight": (HIDDEN,),
        }
    return shapes


def layers_for(params: float) -> int:
    per_layer = sum(torch.Size(s).numel() for s in layer_shapes(1).values()) - \
        sum(torch.Size(s).numel() for s in layer_shapes(0).values())
    fixed = sum(torch.Size(s).numel() for s in layer_shapes(0).values())
    return max(1, round((params - fixed) / per_layer))


def config(layers: int) -> dict:
    return {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": HIDDEN,
            "intermediate_size": INTERMEDIATE, "num_hidden_layers": layers,
            "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS, "vocab_size": VOCAB,
            "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
            "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": False}


def write_checkpoint(folder: Path, shapes: dict, layers: int, seed: int, base_seed: int) -> None:
    """A sharded bf16 checkpoint: a shared base plus a seed-specific perturbation."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True)
    groups, size = [[]], 0
    for name in sorted(shapes):
        nbytes = torch.Size(shapes[name]).numel() * 2
        if groups[-1] and size + nbytes > SHARD_BYTES:
            groups, size = [*groups, []], 0
        groups[-1].append(name)
        size += nbytes
    weight_map, total = {}, 0
    for index, group in enumerate(groups, start=1):
        tensors = {}
        for name in group:
            base = torch.Generator().manual_seed(base_seed + zlib.crc32(name.encode()))
            noise = torch.Generator().manual_seed(seed * 10**7 + zlib.crc32(name.encode()))
            value = torch.randn(shapes[name], generator=base) * 0.02
            value += torch.randn(shapes[name], generator=noise) * 0.002
            tensors[name] = value.to(torch.bfloat16)
            total += tensors[name].numel() * 2
        shard = f"model-{index:05d}-of-{len(groups):05d}.safetensors"
        save_file(tensors, folder / shard, metadata={"format": "pt"})
        weight_map |= dict.fromkeys(group, shard)
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))
    (folder / "config.json").write_text(json.dumps(config(layers), indent=2))


def make_pair(workdir: Path, params: float) -> tuple[Path, Path, int]:
    layers = layers_for(params)
    shapes = layer_shapes(layers)
    count = sum(torch.Size(s).numel() for s in shapes.values())
    pair = workdir / f"pair-{count}"
    if not (pair / "done").exists():
        shutil.rmtree(pair, ignore_errors=True)
        print(f"writing a pair of {count / 1e9:.2f}B-parameter bf16 checkpoints "
              f"({layers} layers) to {pair} ...", flush=True)
        write_checkpoint(pair / "low", shapes, layers, seed=1, base_seed=0)
        write_checkpoint(pair / "high", shapes, layers, seed=2, base_seed=0)
        (pair / "done").touch()
    return pair / "low", pair / "high", count


def shard_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.safetensors"))


# Linux carries a process's peak RSS across exec, so a child forked straight from
# this (large) process would report at least our own peak: a small launcher in
# between forks the measured command and reports its wait4 figures.
LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status))
"""


def timed(command: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of a command run in a fresh process."""
    done = subprocess.run([sys.executable, "-c", LAUNCHER, *command], capture_output=True,
                          text=True, env=env)
    wall, rss, code = done.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{command[:3]} failed: {done.stderr[-2000:]}")
    return float(wall), int(rss) / 1e9


def mergekit_command(low: Path, high: Path, alpha: float, out: Path, folder: Path) -> list[str] | None:
    tool = shutil.which("mergekit-yaml") or str(Path(sys.executable).parent / "mergekit-yaml")
    if not Path(tool).exists():
        return None
    spec = folder / "mergekit.yml"
    spec.write_text(json.dumps({  # YAML is a superset of JSON
        "merge_method": "linear",
        "models": [{"model": str(high), "parameters": {"weight": alpha}},
                   {"model": str(low), "parameters": {"weight": 1 - alpha}}],
        "parameters": {"normalize": False}, "dtype": "float32", "out_dtype": "bfloat16"}))
    return [tool, str(spec), str(out), "--no-cuda", "--quiet", "--copy-tokenizer"]


def median_run(name: str, make_command, repeats: int, scratch: Path, env=None) -> dict:
    walls, rss = [], []
    for _ in range(repeats):
        for leftover in scratch.iterdir():
            shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
        command = make_command()
        wall, peak = timed(command, env)
        walls.append(wall)
        rss.append(peak)
    return {"name": name, "wall": statistics.median(walls), "walls": walls, "rss": max(rss)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--params", type=float, default=1.2e9)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=1.3)
    parser.add_argument("--alphas", type=float, nargs="+", default=[-0.5, 0.5, 1.3, 2.0],
                        help="the one-pass multi-α run")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "codefrontier-merge-bench")
    parser.add_argument("--skip-mergekit", action="store_true")
    args = parser.parse_args()

    args.workdir.mkdir(parents=True, exist_ok=True)
    low, high, count = make_pair(args.workdir, args.params)
    checkpoint_gb = sum(f.stat().st_size for f in shard_files(low)) / 1e9
    scratch = args.workdir / "scratch"
    scratch.mkdir(exist_ok=True)
    python = sys.executable
    cache = args.workdir / "hash-cache"
    for file in shard_files(low) + shard_files(high):  # into the page cache
        with file.open("rb") as handle:
            while handle.read(1 << 26):
                pass

    def fresh_cache_env() -> dict:
        shutil.rmtree(cache, ignore_errors=True)
        return {**os.environ, "CODEFRONTIER_CACHE": str(cache)}

    ours = [python, "-m", "codefrontier.cli", "merge", "--low", str(low), "--high", str(high)]
    results = [
        median_run("I/O floor (read 2, write 1)", lambda: [python, "-c", FLOOR,
                   *map(str, shard_files(low) + shard_files(high)), str(scratch / "floor.bin")],
                   args.repeats, scratch),
    ]
    env = {**os.environ, "CODEFRONTIER_CACHE": str(cache)}
    results.append(median_run(
        "codefrontier merge (parents hashed)",
        lambda: [*ours, "--alpha", str(args.alpha), "--out", str(scratch / "out")],
        args.repeats, scratch, env=fresh_cache_env()))
    results.append(median_run(
        "codefrontier merge (hashes cached)",
        lambda: [*ours, "--alpha", str(args.alpha), "--out", str(scratch / "out")],
        args.repeats, scratch, env=env))
    outs = [str(scratch / f"out{i}") for i in range(len(args.alphas))]
    many = median_run(f"codefrontier merge, {len(args.alphas)} α in one pass",
                      lambda: [*ours, "--alpha", *map(str, args.alphas), "--out", *outs],
                      args.repeats, scratch, env=env)
    results.append(many)
    if not args.skip_mergekit:
        command = mergekit_command(low, high, args.alpha, scratch / "mergekit", args.workdir)
        if command is None:
            print("mergekit not installed (pip install mergekit): skipped")
        else:
            results.append(median_run("mergekit linear (float32, normalize off)",
                                      lambda: command, args.repeats, scratch))

    floor = results[0]["wall"]
    print(f"\n{count / 1e9:.2f}B parameters, {checkpoint_gb:.2f} GB per checkpoint, "
          f"{len(shard_files(low))} shards, α = {args.alpha}, torch threads "
          f"{torch.get_num_threads()}, median of {args.repeats}\n")
    print(f"| {'run':<44} | {'wall s':>7} | {'× floor':>7} | {'peak RSS GB':>11} |")
    print(f"|{'-' * 46}|{'-' * 9}|{'-' * 9}|{'-' * 13}|")
    for result in results:
        print(f"| {result['name']:<44} | {result['wall']:7.2f} | {result['wall'] / floor:7.2f} | "
              f"{result['rss']:11.2f} |")
    per_output = many["wall"] / len(args.alphas)
    print(f"\none-pass multi-α: {per_output:.2f} s per output "
          f"({per_output / floor:.2f} × the single-output floor); runs: "
          + "; ".join(f"{r['name']}: {', '.join(f'{w:.2f}' for w in r['walls'])}" for r in results))
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
