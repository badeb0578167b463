# Sourced by the SFT benchmarks (kernel_modes.sh, busy_machine.sh): `sft_steps NAME
# [VAR=VALUE ...]` trains the default's SFT for $steps steps from $results' initial
# model and SFT data, with the variables set, into $work/NAME, and prints NAME, the
# weights' sha256 and the seconds of train_runtime. The SFT rule's two threads and
# config.yaml's `environment`, as the job has them. The checkout's .venv (make install)
# runs them unless PYTHON names another interpreter.
python=${PYTHON:-$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")/.venv/bin/python}
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=2
export GLIBC_TUNABLES="glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"

sft_steps() {
  local name=$1; shift
  local out="$work/${name//[^A-Za-z0-9]/_}"
  env "$@" "$python" -m codefrontier.cli train sft --model "$results/tiny/init" \
    --data "$results/data/sft.parquet" --out "$out" --set max_steps="$steps" \
    --set per_device_train_batch_size=1 --set gradient_accumulation_steps=2 \
    --set learning_rate=0.002 --set seed=0 > "$out.log" 2>&1 \
    || { echo "$name: SFT failed ($python):" >&2; tail -5 "$out.log" >&2
         return 1; }
  local runtime
  runtime=$(grep -o "'train_runtime': '\?[0-9.]*" "$out.log" | grep -o '[0-9.]*$' | tail -1)
  printf '%-34s %s  %6s s\n' "$name" "$(sha256sum "$out/model.safetensors" | cut -c1-12)" \
    "$runtime"
}
