"""Which kernels a CPU job's arithmetic runs on, and the mode that pins them.

Three libraries choose a code path by the processor they find:

- ATen (torch's own CPU kernels) dispatches on the instruction set when torch loads
  (`torch.backends.cpu.get_cpu_capability()`: AVX2, AVX512, ...); ATEN_CPU_CAPABILITY
  caps it.
- MKL (torch's GEMMs on the CPU wheel) picks a branch per processor, with cache-size
  dependent blocking; its Conditional Numerical Reproducibility (MKL_CBWR) fixes one.
  Only the COMPATIBLE branch (SSE2) gives the same results on Intel and other vendors'
  processors: MKL documents that a named branch such as AVX2 falls back to AUTO on
  non-Intel CPUs.
- oneDNN caps its JIT kernels at ONEDNN_MAX_CPU_ISA.

A sum taken over another vector width or blocking rounds differently, and after an SFT
run's steps the weights differ in their last bits; every sample and table after them
differs from there on. `native` (the default) leaves every library to its own choice:
fastest, and bit-reproducible on one kind of processor. `reproducible` pins all three
to what every x86-64 processor in use runs the same way (docs/default-results.md,
"Kernels and processors", measures its cost and what it makes equal). Results also
depend on each job's thread count (a reduction split over other threads rounds
otherwise): that is the config's `threads` per rule, the same on every machine with at
least that many cores.

Not pinned: vLLM's CPU build (the `vllm` sampling backend without a GPU) loads one of
its own kernel libraries (AVX-512 with BF16, AVX-512, AVX2) by what CPUID says, which
no variable overrides; samples it draws can differ between an AVX2 and an AVX-512
processor in either mode (benchmarks/vllm_kernels.py).
"""

from __future__ import annotations

import os

KERNEL_MODES: dict[str, dict[str, str]] = {
    "native": {},
    "reproducible": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE",
                     "ONEDNN_MAX_CPU_ISA": "AVX2"},
}
DEFAULT_KERNELS = "native"
KERNEL_VARIABLES = tuple(sorted({name for mode in KERNEL_MODES.values() for name in mode}))


def kernel_environment(mode: str) -> dict[str, str]:
    """The variables a mode sets in every job's environment."""
    if mode not in KERNEL_MODES:
        raise ValueError(f"unknown kernel mode {mode!r} (one of {', '.join(KERNEL_MODES)})")
    return dict(KERNEL_MODES[mode])


def kernel_settings() -> dict[str, str]:
    """The pinning variables in this process's environment (for provenance: two records
    with other settings were computed by other kernels)."""
    return {name: os.environ[name] for name in KERNEL_VARIABLES if name in os.environ}
