#!/usr/bin/env bash
# Multi-turn sampling with and without the prefix cache (generation/prefix_cache.py), on a
# finished run.
#
#   bash benchmarks/prefix_cache.sh [RESULTS] [CHECKPOINT]
#
# RESULTS (default: results, a finished `make run`) gives the checkpoint (default sft)
# and the eval problems. Samples the tool_use and agentic settings with the default's
# options, once with `--prefix-cache-mb 0` (every turn prefills its whole conversation)
# and once with the cache, on one thread each, in the job environment of config.yaml.
# Prints wall, user and system seconds per run, how many prompt tokens the cache spared
# (from the sampling log) and whether the two runs' completions agree.
set -euo pipefail
results=$(realpath "${1:-results}")
ckpt=${2:-sft}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$here/benchmarks/eval_lib.sh"

for setting in tool_use agentic; do
  setting_options $setting
  for cache_mb in 0 2048; do
    timed "sample $setting $ckpt (prefix cache $cache_mb MB)" "$here" \
      "$work/$setting-$cache_mb.parquet" sample --model "$results/tiny/$ckpt" \
      --problems "$results/data/eval.parquet" --setting $setting "${options[@]}" \
      --prefix-cache-mb $cache_mb
    grep -o "prefix cache: .*" "$work/log" | sed 's/^/  /' || true
  done
  agree completion "$work/$setting-0.parquet" "$work/$setting-2048.parquet"
done
