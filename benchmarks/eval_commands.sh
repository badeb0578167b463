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
tunables=$("$python" -c "import yaml; print(yaml.safe_load(open('$here/config.yaml'))['environment']['GLIBC_TUNABLES'])")
export OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1

timed() {  # timed LABEL TREE OUT ARGS...: one run of `codefrontier ARGS --out OUT`
  local label=$1 tree=$2 out=$3; shift 3
  local env=(PYTHONPATH="$tree")
  # a tree whose config has the job environment gets it, as its Snakemake jobs would
  grep -q GLIBC_TUNABLES "$tree/config.yaml" && env+=(GLIBC_TUNABLES="$tunables")
  (cd "$work" && env "${env[@]}" /usr/bin/time -f "$label: %e s wall, %U s user, %S s system" \
    -o "$work/time" "$python" -m codefrontier.cli "$@" --quiet --out "$out" > /dev/null 2>&1)
  cat "$work/time"
}

agree() {  # agree COLUMN A B: the share of rows whose COLUMN is equal
  "$python" -c "
import pandas as pd
a, b = pd.read_parquet('$2'), pd.read_parquet('$3')
print(f'  $1 agree on {(a[\"$1\"].values == b[\"$1\"].values).mean():.1%} of {len(a)} rows')"
}

problems=$results/data/eval.parquet
sampling=(--temperature 0.2 --top-p 1.0 --seed 0)
for setting in reasoning tool_use agentic; do
  case $setting in
    reasoning) options=(--n 5 --max-new-tokens 200 --batch-size 80) ;;
    tool_use) options=(--n 2 --max-new-tokens 256 --batch-size 96 --max-tool-calls 2
                       --tool-output-chars 600 --judge-workers 1) ;;
    agentic) options=(--n 2 --max-new-tokens 256 --batch-size 96 --max-turns 4
                      --command-cpu-s 5 --command-wall-s 10 --workspace-mb 64
                      --output-chars 600 --judge-workers 1) ;;
  esac
  for tree in "$work/base" "$here"; do
    name=$([ "$tree" = "$here" ] && echo this || echo "$base")
    timed "sample $setting sft ($name)" "$tree" "$work/$setting-$name.parquet" sample \
      --model "$results/tiny/sft" --problems "$problems" --setting $setting \
      "${options[@]}" "${sampling[@]}"
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
