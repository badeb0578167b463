# Shared by eval_commands.sh and prefix_cache.sh (sourced, not run). Expects $here (this
# tree), $python and $work (a scratch folder) to be set.

tunables=$("$python" -c "import yaml; print(yaml.safe_load(open('$here/config.yaml'))['environment']['GLIBC_TUNABLES'])")
export OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1

# The default's options of `codefrontier sample` for one setting (config.yaml), into
# the array `options`.
setting_options() {
  case $1 in
    reasoning) options=(--n 5 --max-new-tokens 200 --batch-size 80) ;;
    tool_use) options=(--n 2 --max-new-tokens 256 --batch-size 96 --max-tool-calls 2
                       --tool-output-chars 600 --judge-workers 1) ;;
    agentic) options=(--n 2 --max-new-tokens 256 --batch-size 96 --max-turns 4
                      --command-cpu-s 5 --command-wall-s 10 --workspace-mb 64
                      --output-chars 600 --judge-workers 1) ;;
  esac
  options+=(--temperature 0.2 --top-p 1.0 --seed 0)
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
