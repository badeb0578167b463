"""A few SFT steps of a small model from a fixed start, on one thread: the weights
tests/test_kernels.py compares with the values recorded below, and that
benchmarks/emulated_processors.py trains on emulated processors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from test_training import FAST_SUM, SLOW_SUM, answer, sum_problem

from codefrontier.base.kernels import kernel_environment
from codefrontier.base.tables import write_records
from codefrontier.base.threads import THREAD_VARIABLES
from codefrontier.problems.schema import save_problems
from codefrontier.settings import reasoning

# sha256 of model.safetensors after `model init` and after the SFT steps, in the
# reproducible mode. Recorded on an AMD EPYC (AVX2 + AVX-512, no AMX); the same on every
# x86-64 processor is what the mode is for: a new value on another processor is a
# kernel the mode does not pin (docs/default-results.md, "Kernels and processors").
RECORDED = {"init": "674bff7b699252868da1ad6b83f42c241ee8b442f59265981a229339c5147ce6",
            "sft": "046437f77ed42d64318a6f7f2831b260adebfc92603885af11d2fd3d67461a17"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def few_sft_steps(folder: Path, kernels: str, emulator: tuple[str, ...] = (),
                  timeout_s: float = 900) -> dict[str, str]:
    """Write two problems and their SFT data to folder, initialise a small model and
    train it 4 SFT steps with the given kernel mode, each command run under emulator
    (e.g. ("qemu-x86_64", "-cpu", "Haswell")) when one is given. Returns the sha256 of
    the weights after init and after SFT."""
    problems = [sum_problem("sum-a"), sum_problem("sum-b")]
    save_problems(problems, folder / "train.parquet")
    write_records([{"problem_id": p.problem_id, "variant": variant,
                    "prompt": reasoning.messages(p),
                    "completion": [{"role": "assistant", "content": answer(program)}]}
                   for p in problems
                   for variant, program in (("efficient", FAST_SUM), ("slow", SLOW_SUM))],
                  folder / "sft.parquet")
    # one thread in every library: MKL's pinned branch gives other sums on two threads,
    # and a command run in the caller's process may have exported another count
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           **{name: "1" for name in THREAD_VARIABLES}, **kernel_environment(kernels)}

    def cli(*args):
        done = subprocess.run([*emulator, sys.executable, "-m", "codefrontier.cli",
                               *map(str, args)], env=env, capture_output=True, text=True,
                              timeout=timeout_s)
        if done.returncode != 0:
            raise RuntimeError(f"codefrontier {args[0]} {args[1]} failed:\n"
                               f"{done.stderr[-3000:]}")

    cli("model", "init", "--out", folder / "init", "--texts", folder / "train.parquet",
        folder / "sft.parquet", "--vocab-size", 512, "--hidden-size", 64,
        "--num-hidden-layers", 2, "--intermediate-size", 128)
    cli("train", "sft", "--model", folder / "init", "--data", folder / "sft.parquet",
        "--out", folder / "sft", "--set", "max_steps=4", "--set", "learning_rate=3e-3",
        "--set", "per_device_train_batch_size=2", "--set", "seed=0")
    return {stage: sha256(folder / stage / "model.safetensors") for stage in ("init", "sft")}


def cpu_model() -> str:
    """The processor's model name, as /proc/cpuinfo gives it."""
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        return next((line.split(":", 1)[1].strip() for line in handle
                     if line.startswith("model name")), "unknown")
