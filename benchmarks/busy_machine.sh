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
source "$(dirname "$0")/sft_steps.sh"

for policy in ACTIVE PASSIVE; do
  sft_steps "$policy, quiet" OMP_WAIT_POLICY="$policy"
  for _ in $(seq $((cores * loops_per_core))); do (while :; do :; done) & done
  sft_steps "$policy, beside $loops_per_core loops per core" OMP_WAIT_POLICY="$policy"
  kill $(jobs -p); wait 2>/dev/null || true
done
