"""The kernels mode on processors this machine is not: tests/test_kernels.py's few SFT
steps (tests/kernel_steps.py) run natively and under QEMU's user-mode emulator as other
processor models, in each kernel mode.

    python benchmarks/emulated_processors.py [--cpus Haswell EPYC-Rome] [--modes ...]

Needs qemu-user (Debian: `apt-get install qemu-user`; its QEMU 7.2 emulates x86-64 up to
AVX2 with FMA, not AVX-512 or AMX). An emulated processor model answers CPUID with its
own vendor and instruction set, which is where torch, MKL and oneDNN read what to
dispatch on, and QEMU computes each floating-point instruction to IEEE 754, so a model
whose weights in the reproducible mode equal the recorded ones is a processor on which
the mode computes the same bits. The native mode is the control: where this machine
has AVX-512, an emulated AVX2 processor must change its weights, or the emulation would
show nothing. Prints a Markdown table: per processor and mode, the instruction set ATen
dispatches on, the weights' sha256 after init and SFT, and whether they are the
recorded ones (reproducible) or this machine's own (native).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kernel_steps import RECORDED, cpu_model, few_sft_steps
from processors import EMULATOR

from codefrontier.base.kernels import KERNEL_MODES, kernel_environment

# the slowest emulated command measured here took under 10 minutes
TIMEOUT_S = 3600


def aten_capability(emulator: tuple[str, ...], kernels: str) -> str:
    """The instruction set ATen dispatches on under emulator and kernel mode."""
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    done = subprocess.run([*emulator, sys.executable, "-c", code], capture_output=True,
                          text=True, check=True, timeout=TIMEOUT_S,
                          env={**os.environ, **kernel_environment(kernels)})
    return done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpus", nargs="+", default=["Haswell", "EPYC-Rome"],
                        help="QEMU processor models (`qemu-x86_64 -cpu help`)")
    parser.add_argument("--modes", nargs="+", default=list(KERNEL_MODES),
                        choices=list(KERNEL_MODES))
    args = parser.parse_args()
    if shutil.which(EMULATOR) is None:
        parser.error(f"{EMULATOR} not found: install qemu-user (Debian: apt-get install "
                     "qemu-user)")
    print(f"this machine: {cpu_model()}\n")
    print("| processor | kernels | ATen | init | SFT | same as | seconds |")
    print("|---|---|---|---|---|---|---|")
    native: dict[str, dict[str, str]] = {}
    for cpu in [None, *args.cpus]:
        emulator = (EMULATOR, "-cpu", cpu) if cpu else ()
        for kernels in args.modes:
            start = time.monotonic()
            with tempfile.TemporaryDirectory() as folder:
                found = few_sft_steps(Path(folder), kernels, emulator, timeout_s=TIMEOUT_S)
            seconds = time.monotonic() - start
            if cpu is None:
                native[kernels] = found
            reference = RECORDED if kernels == "reproducible" else native.get(kernels)
            label = "recorded" if kernels == "reproducible" else "this machine"
            same = label if found == reference else f"not {label}"
            print(f"| {cpu or 'this machine'} | {kernels} | "
                  f"{aten_capability(emulator, kernels)} | {found['init'][:8]} | "
                  f"{found['sft'][:8]} | {same} | {seconds:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
