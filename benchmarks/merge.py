"""Merge speed and memory: codefrontier's merge against the I/O floor (and mergekit), with
the parents in the page cache (warm) and out of it (cold).

Builds (once, under --workdir) a pair of Qwen2-shaped bf16 checkpoints of about
--params parameters, sharded like save_pretrained output, then times in fresh
processes, start-up included, --repeats times; within a repeat the runs follow each
other, so that the floor and the merge share the machine's state of the moment:

  floor       read both parents' shard files and write one output's worth of bytes
              (1 MiB buffers, no arithmetic): what any merge must pay. The buffer
              size matters: on the 2-core VM this was written on, 16 MiB buffers
              (this benchmark's earlier floor) take 2 to 5 times as long
  ours        merge_alpha(low, high, α, out), the call `codefrontier merge` makes, of
              this checkout's code, with the parents' content hashes cached (the usual
              case: every α after the first)
  ours, parents hashed
              the same with an empty hash cache: both parents' sha256 computed in a
              background thread during the merge (warm only)
  mergekit    `mergekit-yaml` linear merge, normalize off, dtype float32, out_dtype
              bfloat16 (warm only; pip install mergekit; skipped if absent)

warm: the parents are read once before each run, so they are in the page cache and
the floor is memory bandwidth and page-cache allocation, not disk: the hardest case for
the ratio. cold: before each run every parent file's pages are evicted with
posix_fadvise(POSIX_FADV_DONTNEED); the rest of the page cache (Python, torch) stays.
Before every run, `sync` writes back what earlier runs left dirty.

Each merge also reports, from inside its process, how long the imports (torch,
codefrontier) and the merge call took. CPU s is the child's user and system time, all
threads together: the work done, which other load on the machine changes less than it
changes the wall time. Peak RSS is the child's ru_maxrss. Medians of --repeats; every
run's wall time is printed too.

    python benchmarks/merge.py [--params 1.2e9] [--repeats 3] [--alpha 1.3]
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

REPOSITORY = Path(__file__).resolve().parents[1]

FLOOR = """
import sys
from pathlib import Path
inputs, out = [Path(p) for p in sys.argv[1:-1]], Path(sys.argv[-1])
buffer = bytearray(1 << 20)
view = memoryview(buffer)
with open(out, "wb", buffering=0) as sink:
    for index, file in enumerate(inputs):
        with open(file, "rb", buffering=0) as source:
            while read := source.readinto(buffer):
                if index % 2 == 0:  # write one parent's worth of bytes
                    sink.write(view[:read])
"""

OURS = """
import sys, time
from pathlib import Path
start = time.perf_counter()
from codefrontier.merge import merge_alpha
imported = time.perf_counter()
merge_alpha(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4])
Path(sys.argv[5]).write_text(f"{imported - start} {time.perf_counter() - imported}")
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
print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
      os.waitstatus_to_exitcode(status))
"""


def timed(command: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user and system, all threads) and peak RSS (GB) of a
    command run in a fresh process."""
    done = subprocess.run([sys.executable, "-c", LAUNCHER, *command], capture_output=True,
                          text=True, env=env)
    wall, cpu, rss, code = done.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{command[:3]} failed: {done.stderr[-2000:]}")
    return float(wall), float(cpu), int(rss) / 1e9


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


def evict(files: list[Path]) -> None:
    for file in files:
        fd = os.open(file, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def warm(files: list[Path]) -> None:
    for file in files:
        with file.open("rb", buffering=0) as handle:
            while handle.read(1 << 26):
                pass


def clear(scratch: Path) -> None:
    for leftover in scratch.iterdir():
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()


class Run:
    """One row of the table: a command run once per repeat."""

    def __init__(self, name: str, make_command, env: dict | None = None,
                 inside: Path | None = None) -> None:
        self.name, self.make_command, self.env, self.inside = name, make_command, env, inside
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.rss: list[float] = []
        self.inside_figures: list[tuple[float, float]] = []

    def once(self) -> None:
        wall, cpu, rss = timed(self.make_command(), self.env() if self.env else None)
        self.walls.append(wall)
        self.cpus.append(cpu)
        self.rss.append(rss)
        if self.inside is not None:
            imports, call = map(float, self.inside.read_text().split())
            self.inside_figures.append((imports, call))

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    def inside_text(self) -> str:
        if not self.inside_figures:
            return "-"
        imports = statistics.median(i for i, _ in self.inside_figures)
        call = statistics.median(c for _, c in self.inside_figures)
        return f"{imports:.2f} + {call:.2f}"


def measure(runs: list[Run], repeats: int, cache: str, parents: list[Path],
            scratch: Path) -> None:
    for _ in range(repeats):
        for run in runs:
            clear(scratch)
            os.sync()
            evict(parents) if cache == "cold" else warm(parents)
            run.once()


def report(runs: list[Run], cache: str) -> None:
    floor = runs[0].wall
    print(f"\n{cache} page cache\n")
    print(f"| {'run':<38} | {'wall s':>7} | {'× floor':>7} | {'imports + merge call s':>22} "
          f"| {'CPU s':>6} | {'peak RSS GB':>11} |")
    print(f"|{'-' * 40}|{'-' * 9}|{'-' * 9}|{'-' * 24}|{'-' * 8}|{'-' * 13}|")
    for run in runs:
        print(f"| {run.name:<38} | {run.wall:7.2f} | {run.wall / floor:7.2f} | "
              f"{run.inside_text():>22} | {statistics.median(run.cpus):6.2f} | "
              f"{max(run.rss):11.2f} |")
    print("runs: " + "; ".join(f"{run.name}: {', '.join(f'{w:.2f}' for w in run.walls)}"
                               for run in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--params", type=float, default=1.2e9)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=1.3)
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "codefrontier-merge-bench")
    parser.add_argument("--cache", choices=("warm", "cold", "both"), default="both")
    parser.add_argument("--skip-mergekit", action="store_true")
    args = parser.parse_args()

    args.workdir.mkdir(parents=True, exist_ok=True)
    low, high, count = make_pair(args.workdir, args.params)
    parents = shard_files(low) + shard_files(high)
    checkpoint_gb = sum(f.stat().st_size for f in shard_files(low)) / 1e9
    scratch = args.workdir / "scratch"
    scratch.mkdir(exist_ok=True)
    python = sys.executable
    cache = args.workdir / "hash-cache"
    inside = args.workdir / "inside.txt"
    pythonpath = os.pathsep.join(filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")]))
    cached = {**os.environ, "CODEFRONTIER_CACHE": str(cache), "PYTHONPATH": pythonpath}

    def fresh_hash_cache() -> dict:
        shutil.rmtree(cache, ignore_errors=True)
        return cached

    def ours() -> list[str]:
        return [python, "-c", OURS, str(low), str(high), str(args.alpha), str(scratch / "out"),
                str(inside)]

    def floor() -> list[str]:
        return [python, "-c", FLOOR, *map(str, parents), str(scratch / "floor.bin")]

    timed(ours(), fresh_hash_cache())  # the parents' hashes into the cache
    caches = ["warm", "cold"] if args.cache == "both" else [args.cache]
    tables = {}
    for state in caches:
        runs = [Run("I/O floor (read 2, write 1)", floor),
                Run("codefrontier merge (hashes cached)", ours, lambda: cached, inside)]
        if state == "warm":
            runs.append(Run("codefrontier merge (parents hashed)", ours, fresh_hash_cache,
                            inside))
            command = mergekit_command(low, high, args.alpha, scratch / "mergekit", args.workdir)
            if command is None or args.skip_mergekit:
                print("mergekit skipped" + ("" if args.skip_mergekit else
                                            " (not installed: pip install mergekit)"))
            else:
                runs.append(Run("mergekit linear (fp32, normalize off)",
                                lambda command=command: command))
        measure(runs, args.repeats, state, parents, scratch)
        tables[state] = runs

    print(f"\n{count / 1e9:.2f}B parameters, {checkpoint_gb:.2f} GB per checkpoint, "
          f"{len(shard_files(low))} shards, α = {args.alpha}, {os.cpu_count()} CPUs, "
          f"median of {args.repeats}")
    for state, runs in tables.items():
        report(runs, state)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
