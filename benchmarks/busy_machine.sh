#!/usr/bin/env bash
# SFT on a busy machine: the default's SFT for a few steps, quiet and beside busy loops,
# under OpenMP's two wait policies (after `make run`).
#
#   bash benchmarks/busy_machine.sh [RESULTS] [STEPS] [LOOPS_PER_CORE]
#
# RESULTS (default: results) holds the main job's initial model and SFT data. Each run
# is `codefrontier train sft` with the SFT rule's two threads (OMP_NUM_THREADS=2, as
# Snakemake sets it) for STEPS steps (default 30); "busy" starts LOOPS_PER_CORE (default
# 2) busy-looping processes per core beside it, so the run's fair share of the CPU is
# 1 / (1 + LOOPS_PER_CORE). Prints one line per run: wait policy, load, seconds of
# train_runtime, and the weights' sha256 (the policy changes how threads wait, never
# what they compute).
set -euo pipefail
results=$(realpath "${1:-results}")
steps=${2:-30}
loops_per_core=${3:-2}
cores=$(nproc)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=2
export GLIBC_TUNABLES="glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"

sft() {  # policy load
  local out="$work/$1-$2"
  OMP_WAIT_POLICY=$1 python -m codefrontier.cli train sft --model "$results/tiny/init" \
    --data "$results/data/sft.parquet" --out "$out" --set max_steps="$steps" \
    --set per_device_train_batch_size=1 --set gradient_accumulation_steps=2 \
    --set learning_rate=0.002 --set seed=0 > "$out.log" 2>&1
  local runtime
  runtime=$(grep -o "'train_runtime': '\?[0-9.]*" "$out.log" | grep -o '[0-9.]*$' | tail -1)
  echo "$1 $2 ${runtime} s $(sha256sum "$out/model.safetensors" | cut -c1-12)"
}

for policy in ACTIVE PASSIVE; do
  sft "$policy" quiet
  for _ in $(seq $((cores * loops_per_core))); do (while :; do :; done) & done
  sft "$policy" "busy($loops_per_core/core)"
  kill $(jobs -p); wait 2>/dev/null || true
done
