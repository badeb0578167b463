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
# the variables changed nothing the run computes on this processor.
set -euo pipefail
results=$(realpath "${1:-results}")
steps=${2:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=2
export GLIBC_TUNABLES="glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"
echo "processor: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
     "$(grep -m1 -o 'avx512f\|amx_tile' /proc/cpuinfo | sort -u | xargs || true)"

sft() {  # name VAR=VALUE ...
  local name=$1; shift
  local out="$work/$name"
  env "$@" python -m codefrontier.cli train sft --model "$results/tiny/init" \
    --data "$results/data/sft.parquet" --out "$out" --set max_steps="$steps" \
    --set per_device_train_batch_size=1 --set gradient_accumulation_steps=2 \
    --set learning_rate=0.002 --set seed=0 > "$out.log" 2>&1
  local runtime
  runtime=$(grep -o "'train_runtime': '\?[0-9.]*" "$out.log" | grep -o '[0-9.]*$' | tail -1)
  printf '%-34s %s  %6s s\n' "$name" "$(sha256sum "$out/model.safetensors" | cut -c1-12)" \
    "$runtime"
}

sft native
sft "native, again"
sft "native, one thread" OMP_NUM_THREADS=1
sft "ATen avx2" ATEN_CPU_CAPABILITY=avx2
sft "MKL_CBWR=AVX2" MKL_CBWR=AVX2
sft "oneDNN AVX2" ONEDNN_MAX_CPU_ISA=AVX2
sft "MKL_CBWR=COMPATIBLE" MKL_CBWR=COMPATIBLE
sft "reproducible (all three)" ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=COMPATIBLE \
  ONEDNN_MAX_CPU_ISA=AVX2
sft "reproducible, again" ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=COMPATIBLE \
  ONEDNN_MAX_CPU_ISA=AVX2
