# Shared by eval_commands.sh, prefix_cache.sh and sft_protocols.sh (sourced, not run).
# Expects $here (this tree), $python and $work (a scratch folder) to be set.

tunables=$("$python" -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['environment']['GLIBC_TUNABLES'])" "$here/config.yaml")
export OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1

# The options config.yaml's rule gives its command (benchmarks/default_options.py ARGS),
# into the array `options`.
rule_options() {
  mapfile -t options < <("$python" "$here/benchmarks/default_options.py" "$@")
}

# The options of `codefrontier sample` for one setting, on one judge worker.
setting_options() {
  rule_options sample --setting "$1"
  options+=(--judge-workers 1)
}

timed() {  # timed LABEL TREE OUT ARGS...: one run of `codefrontier ARGS --out OUT` (its output: $work/log)
  local label=$1 tree=$2 out=$3; shift 3
  local env=(PYTHONPATH="$tree")
  # a tree whose config has the job environment gets it, as its Snakemake jobs would
  grep -q GLIBC_TUNABLES "$tree/config.yaml" && env+=(GLIBC_TUNABLES="$tunables")
  (cd "$work" && env "${env[@]}" /usr/bin/time -f "$label: %e s wall, %U s user, %S s system" \
    -o "$work/time" "$python" -m codefrontier.cli "$@" --quiet --out "$out" > "$work/log" 2>&1)
  cat "$work/time"
}

agree() {  # agree COLUMN A B: the share of rows whose COLUMN is equal
  "$python" -c "
import pandas as pd
a, b = pd.read_parquet('$2'), pd.read_parquet('$3')
print(f'  $1 agree on {(a[\"$1\"].values == b[\"$1\"].values).mean():.1%} of {len(a)} rows')"
}
