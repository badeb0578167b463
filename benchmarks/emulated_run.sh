#!/usr/bin/env bash
# The workflow's jobs in the reproducible kernel mode, computed by an emulated processor
# of another kind (QEMU's user-mode emulator; Debian: `apt-get install qemu-user`), to
# hold against the same run on this processor (`native`) or against the mode's
# reference values in docs/default-results.md ("Kernels and processors").
#
#   [TARGET=results/tiny/sft] bash benchmarks/emulated_run.sh RUN_DIR [QEMU_CPU] [SNAKEMAKE_OPTION ...]
#
# RUN_DIR is a fresh workflow root; QEMU_CPU a processor model of `qemu-x86_64 -cpu
# help` (default Haswell: Intel, AVX2), or `native` for this processor. The workflow's
# own rules run: first the data natively (pure Python, no kernel dispatch), then every
# job TARGET needs with each `codefrontier` command under the emulator (the programs
# the judge runs are native processes), in the jobs' environment (threads, the mode's
# variables, the config's `environment`). Prints the time and the initial and SFT
# weights' sha256; `codefrontier compare` of two such runs says whether every output is
# the same. The default's SFT runs about 150 times slower emulated (a day); with
# `--configfile configs/smoke.yaml` the whole main job takes minutes.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,17p' "$0"; exit 2; }
run=$1
cpu=${2:-Haswell}
shift $(( $# >= 2 ? 2 : 1 ))
checkout=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$checkout/.venv/bin/python}
export PATH="$(dirname "$python"):$PATH"  # the jobs' codefrontier and snakemake
[ "$cpu" = native ] || command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 not found: install qemu-user" >&2; exit 1; }

workflow() {  # TARGET ...: the options come after the targets (--config takes several values)
    snakemake "$@" -c2 -s "$checkout/Snakefile" -d "$run" \
        --config kernels=reproducible "${options[@]}"
}
options=("$@")
model=${MODEL:-tiny}  # the config's model (the default's and the smoke config's)
target=${TARGET:-results/$model/sft}

workflow results/data/sft.parquet results/data/train.parquet results/data/eval.parquet

wrapper=$(mktemp -d)
trap 'rm -rf "$wrapper"' EXIT
if [ "$cpu" != native ]; then
    cat > "$wrapper/codefrontier" <<EOF
#!/bin/sh
exec qemu-x86_64 -cpu $cpu "$python" -m codefrontier.cli "\$@"
EOF
    chmod +x "$wrapper/codefrontier"
fi
start=$(date +%s)
PATH="$wrapper:$PATH" workflow "$target"
echo "$target, processor $cpu: $(( $(date +%s) - start )) s"
sha256sum "$run/results/$model/init/model.safetensors" "$run/results/$model/sft/model.safetensors"
