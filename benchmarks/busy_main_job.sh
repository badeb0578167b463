#!/usr/bin/env bash
# The main job quiet and on a busy machine: does each job keep to the cores it is given?
#
#   bash benchmarks/busy_main_job.sh OUT [LOOPS_PER_CORE]
#
# Runs this checkout's main job (`snakemake -c2`, what `make run` runs before its report)
# twice, each in its own workflow root: OUT/quiet on an otherwise idle machine, then
# OUT/busy beside LOOPS_PER_CORE (default 2) busy-looping processes per core, where its
# fair share of the CPU is 1 / (1 + LOOPS_PER_CORE). Prints each run's wall seconds and
# their ratio, each run's seconds per stage (`codefrontier timings`),
# and `codefrontier compare` of the two (whether the load changed any output: it should
# not, since the judge's limits are on CPU time, not wall time).
# Run it after `make install`; OUT must not exist yet. About 30 minutes quiet on 2 cores.
set -euo pipefail
[ $# -ge 1 ] || { sed -n 4p "$0" >&2; exit 2; }
out=$1
loops_per_core=${2:-2}
repo=$(realpath "$(dirname "$0")/..")
bin=$repo/.venv/bin
[ ! -e "$out" ] || { echo "$out exists: give a new folder" >&2; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

main_job() {
  local root=$out/$1
  mkdir -p "$root"
  local start=$SECONDS
  PATH="$bin:$PATH" "$bin/snakemake" -c2 -s "$repo/Snakefile" -d "$root" > "$root.log" 2>&1
  echo $((SECONDS - start)) > "$root.seconds"
}

main_job quiet
for _ in $(seq $(($(nproc) * loops_per_core))); do (while :; do :; done) & done
main_job busy
kill $(jobs -p); wait 2>/dev/null || true

quiet=$(cat "$out/quiet.seconds")
busy=$(cat "$out/busy.seconds")
echo "processor: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) cores"
echo "main job quiet: $quiet s; beside $loops_per_core loops per core: $busy s" \
  "($(awk "BEGIN {printf \"%.2f\", $busy / $quiet}")x)"
for run in quiet busy; do
  echo "$run, per stage:"
  "$bin/codefrontier" timings "$out/$run/results/benchmarks"
done
"$bin/codefrontier" compare "$out/quiet" "$out/busy" || true
