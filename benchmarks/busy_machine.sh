#!/usr/bin/env bash
# SFT on a busy machine: the default's SFT for a few steps, quiet and beside busy loops,
# with GNU OpenMP's idle threads spinning for three lengths of time (after `make run`).
#
#   bash benchmarks/busy_machine.sh [RESULTS] [STEPS] [LOOPS_PER_CORE]
#
# RESULTS (default: results) holds the main job's initial model and SFT data. Each run
# is `codefrontier train sft` with the SFT rule's two threads (OMP_NUM_THREADS=2, as
# Snakemake sets it) for STEPS steps (default 30); "beside" starts LOOPS_PER_CORE
# (default 2) busy-looping processes per core, so the run's fair share of the CPU is
# 1 / (1 + LOOPS_PER_CORE). The spin counts: GOMP_SPINCOUNT=300000 (libgomp's default),
# 1000 (what codefrontier sets: base/threads.py) and 0 (OMP_WAIT_POLICY=PASSIVE).
# Prints per run the weights' sha256 (how threads wait never changes what they
# compute) and the seconds of train_runtime.
set -euo pipefail
results=$(realpath "${1:-results}")
steps=${2:-30}
loops_per_core=${3:-2}
cores=$(nproc)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
source "$(dirname "$0")/sft_steps.sh"

for spin in GOMP_SPINCOUNT=300000 GOMP_SPINCOUNT=1000 GOMP_SPINCOUNT=0; do
  sft_steps "$spin, quiet" "$spin"
  for _ in $(seq $((cores * loops_per_core))); do (while :; do :; done) & done
  sft_steps "$spin, beside $loops_per_core loops per core" "$spin"
  kill $(jobs -p); wait 2>/dev/null || true
done
