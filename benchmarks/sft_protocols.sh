#!/usr/bin/env bash
# The default's SFT on the splits of a finished run, and its outcome mix in each setting;
# with `--without-fixes`, on SFT data without the fix conversations (in tool_use and
# agentic, one conversation per instance whose broken first draft fails, is fixed and
# passes); with `--mask-failed-attempts`, with no loss on the failed first attempts of
# the fix and repair conversations.
#
#   bash benchmarks/sft_protocols.sh [RESULTS] [WORK] [--without-fixes | --mask-failed-attempts]
#
# RESULTS (default: results, a finished `make run`) gives the train and eval problems;
# WORK (default: a temporary folder) receives the SFT data, the model and the samples.
# Every step takes the options config.yaml's rule gives it (benchmarks/default_options.py):
# the SFT data, the tokenizer and model, SFT, then sampling and judging the eval problems
# in the three settings. Compare with the run's own `sft` rows
# (`codefrontier show RESULTS/frontier.parquet`).
set -euo pipefail
results=$(realpath "${1:-results}")
work=${2:-$(mktemp -d)}
variant=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
source "$here/benchmarks/eval_lib.sh"
export OMP_NUM_THREADS=2 GLIBC_TUNABLES="$tunables"
cf=("$python" -m codefrontier.cli)
mkdir -p "$work/data"
cp "$results/data/train.parquet" "$results/data/eval.parquet" "$work/data/"
cd "$work"
rule_options sft_data
case $variant in
  --without-fixes) mapfile -t options < <(printf '%s\n' "${options[@]}" | grep -vx -- --with-fixes) ;;
  --mask-failed-attempts) options+=(--mask-failed-attempts) ;;
  '') ;;
  *) echo "unknown variant $variant" >&2; exit 2 ;;
esac
"${cf[@]}" problems sft "${options[@]}" --out data/sft.parquet > sft_data.log 2>&1
rule_options model_init
"${cf[@]}" model init --out init --texts data/train.parquet data/sft.parquet "${options[@]}" \
  --force > init.log 2>&1
rule_options sft
"${cf[@]}" train sft --model init --data data/sft.parquet --out sft "${options[@]}" > sft.log 2>&1
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
