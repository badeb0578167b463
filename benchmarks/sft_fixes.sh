#!/usr/bin/env bash
# The default's SFT with fix conversations (`--with-fixes`: in tool_use and agentic, one
# conversation per instance whose broken first draft fails, is fixed and passes), on the
# splits of a finished run, and its outcome mix in each setting.
#
#   bash benchmarks/sft_fixes.sh [RESULTS] [WORK]
#
# RESULTS (default: results, a finished `make run`) gives the train and eval problems;
# WORK (default: a temporary folder) receives the SFT data, the model and the samples.
# Builds the SFT data as the default does plus fixes, trains a tokenizer and model on
# them, runs SFT with the default's settings, samples the eval problems in the three
# settings with the default's options and judges them. Compare with the run's own `sft`
# rows (`codefrontier show RESULTS/frontier.parquet`).
set -euo pipefail
results=$(realpath "${1:-results}")
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
source "$here/benchmarks/eval_lib.sh"
export OMP_NUM_THREADS=2 GLIBC_TUNABLES="$tunables"
cf=("$python" -m codefrontier.cli)
mkdir -p "$work/data"
cp "$results/data/train.parquet" "$results/data/eval.parquet" "$work/data/"
cd "$work"
"${cf[@]}" problems sft --split train --instances 4 --knob-pool 3 --difficulty easy \
  --with-repairs --with-fixes --setting reasoning --setting tool_use --setting agentic \
  --out data/sft.parquet > sft_data.log 2>&1
"${cf[@]}" model init --out init --texts data/train.parquet data/sft.parquet \
  --hidden-size 192 --intermediate-size 512 --num-hidden-layers 4 --seed 0 \
  --vocab-size 4096 --force > init.log 2>&1
"${cf[@]}" train sft --model init --data data/sft.parquet --out sft \
  --set gradient_accumulation_steps=2 --set learning_rate=0.002 --set max_steps=1200 \
  --set per_device_train_batch_size=1 --set save_steps=400 --set seed=0 > sft.log 2>&1
export OMP_NUM_THREADS=1
for setting in reasoning tool_use agentic; do
  setting_options $setting
  "${cf[@]}" sample --model sft --problems data/eval.parquet --setting $setting \
    "${options[@]}" --quiet --out $setting-samples.parquet > sample-$setting.log 2>&1
  "${cf[@]}" judge --problems data/eval.parquet --samples $setting-samples.parquet \
    --workers 1 --quiet --out $setting-verdicts.parquet > judge-$setting.log 2>&1
  "$python" -c "
import pandas as pd
v = pd.read_parquet('$setting-verdicts.parquet')
mix = v.outcome.value_counts(normalize=True).round(3).to_dict()
print('$setting', mix, v.format_error_cause.dropna().value_counts().to_dict())"
done
echo "outputs in $work"
