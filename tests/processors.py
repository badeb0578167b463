"""The processors the processor-dependent tests (marker `processor`, docs/install.md)
also run on without owning them: QEMU's user mode as another processor model, which
answers CPUID as that model and computes IEEE floats (tests/test_kernels.py,
tests/test_vllm.py; benchmarks/emulated_processors.py for more models)."""

import shutil

import pytest

EMULATOR = "qemu-x86_64"
EMULATED_HASWELL = (EMULATOR, "-cpu", "Haswell")  # Intel, AVX2 + FMA, no AVX-512

needs_qemu = pytest.mark.skipif(
    shutil.which(EMULATOR) is None,
    reason="qemu-user is not installed (make test installs it as root on Debian)")
