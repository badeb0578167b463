#!/usr/bin/env bash
# The evaluation commands of this tree against those of another commit, on a finished run.
#
#   bash benchmarks/eval_commands.sh [RESULTS] [BASE]
#
# RESULTS (default: results, a finished `make run`) gives the SFT checkpoint, the eval
# problems and the reasoning samples of sft and rl-k2; BASE (default ca4537a, before
# judge deduplication, the in-place KV cache and the job environment) is checked out in
# a temporary worktree. Each command runs once with each tree, on one thread, with the
# options of config.yaml; a tree whose config.yaml sets the job environment
# (GLIBC_TUNABLES) gets it, as its Snakemake jobs do. Prints wall, user and system seconds per run
# and whether the two trees' outputs agree (completions, or judged outcomes).
set -euo pipefail
results=$(realpath "${1:-results}")
base=${2:-ca4537a}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
work=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$here" worktree add --detach "$work/base" "$base" >/dev/null 2>&1
source "$here/benchmarks/eval_lib.sh"

problems=$results/data/eval.parquet
for setting in reasoning tool_use agentic; do
  setting_options $setting
  for tree in "$work/base" "$here"; do
    name=$([ "$tree" = "$here" ] && echo this || echo "$base")
    timed "sample $setting sft ($name)" "$tree" "$work/$setting-$name.parquet" sample \
      --model "$results/tiny/sft" --problems "$problems" --setting $setting \
      "${options[@]}"
  done
  agree completion "$work/$setting-$base.parquet" "$work/$setting-this.parquet"
done
for ckpt in sft rl-k2; do
  for tree in "$work/base" "$here"; do
    name=$([ "$tree" = "$here" ] && echo this || echo "$base")
    timed "judge reasoning $ckpt ($name)" "$tree" "$work/judge-$ckpt-$name.parquet" judge \
      --problems "$problems" --samples "$results/tiny/reasoning/$ckpt/samples.parquet" \
      --workers 1
  done
  agree outcome "$work/judge-$ckpt-$base.parquet" "$work/judge-$ckpt-this.parquet"
done
