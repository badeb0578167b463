#!/usr/bin/env bash
# Which library's kernels change the SFT weights, and what pinning them costs
# (after `make run`).
#
#   bash benchmarks/kernel_modes.sh [RESULTS] [STEPS]
#
# Trains the default's SFT for STEPS steps (default 30) from RESULTS' initial model and
# SFT data (default: results), with the SFT rule's two threads, once per setting of the
# variables that pin the kernels (codefrontier/base/kernels.py), and prints per setting
# the weights' sha256, the seconds of train_runtime and the processor. Equal hashes:
# the variables changed nothing the run computes on this processor. The last row runs
# the mode as an AVX2-only processor would: every library that reads the instruction
# set told there is no AVX-512 (MKL's instruction cap, glibc's hwcaps for its math
# functions and string routines); the mode should not notice.
set -euo pipefail
results=$(realpath "${1:-results}")
steps=${2:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/sft_steps.sh"
echo "processor: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
     "$(grep -o 'avx512f\|amx_tile' /proc/cpuinfo | sort -u | xargs || true)"

sft_steps native
sft_steps "native, again"
sft_steps "native, one thread" OMP_NUM_THREADS=1
sft_steps "ATen avx2" ATEN_CPU_CAPABILITY=avx2
sft_steps "MKL_CBWR=AVX2" MKL_CBWR=AVX2
sft_steps "oneDNN AVX2" ONEDNN_MAX_CPU_ISA=AVX2
sft_steps "MKL_CBWR=COMPATIBLE" MKL_CBWR=COMPATIBLE
sft_steps "reproducible (all three)" ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=COMPATIBLE \
  ONEDNN_MAX_CPU_ISA=AVX2
sft_steps "reproducible, again" ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=COMPATIBLE \
  ONEDNN_MAX_CPU_ISA=AVX2
sft_steps "reproducible, AVX-512 hidden" ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=COMPATIBLE \
  ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 \
  GLIBC_TUNABLES="$GLIBC_TUNABLES:glibc.cpu.hwcaps=-AVX512F,-AVX512CD,-AVX512DQ,-AVX512BW,-AVX512VL"
