#!/usr/bin/env bash
# Repair training with a first-attempt weight, against a finished default run's α curve.
#
#   bash benchmarks/repair_weight.sh [WEIGHT] [RESULTS] [OUT]
#
# From RESULTS (default: results, a finished `make run`): trains the repair run of
# config.yaml (its options: benchmarks/default_options.py) with
# `--first-attempt-weight WEIGHT` (default 0.5), samples and judges it in reasoning as
# the default does, gives its failures second attempts at evaluation, and prints the
# reasoning frontier table with it beside the run's checkpoints, its training log and the
# share of failures its second attempts correct.
set -euo pipefail
weight=${1:-0.5}
results=$(realpath "${2:-results}")
out=$(realpath -m "${3:-results/repair-weight-$weight}")
name=rl-repair-kinf-w$weight
ckpt=$out/results/tiny/reasoning/$name
cf() { HF_HUB_OFFLINE=1 python -m codefrontier.cli "$@"; }
rule_options() { mapfile -t options < <(python "$(dirname "$0")/default_options.py" "$@"); }
mkdir -p "$ckpt/second-attempt"
rule_options rl --reward repair-kinf --setting reasoning
cf train grpo --model "$results/tiny/sft" --problems "$results/data/train.parquet" \
  "${options[@]}" --first-attempt-weight "$weight" --judge-workers 1 --out "$out/rl/$name"
rule_options sample --setting reasoning
cf sample --model "$out/rl/$name" --problems "$results/data/eval.parquet" --setting reasoning \
  "${options[@]}" --quiet --out "$ckpt/samples.parquet"
cf judge --problems "$results/data/eval.parquet" --samples "$ckpt/samples.parquet" --workers 1 \
  --quiet --out "$ckpt/verdicts.parquet"
rule_options second_attempt --setting reasoning
cf second-attempt sample --model "$out/rl/$name" --problems "$results/data/eval.parquet" \
  --samples "$ckpt/samples.parquet" --verdicts "$ckpt/verdicts.parquet" "${options[@]}" \
  --judge-workers 1 --quiet --out "$ckpt/second-attempt/samples.parquet"
cf judge --problems "$results/data/eval.parquet" --samples "$ckpt/second-attempt/samples.parquet" \
  --workers 1 --quiet --out "$ckpt/second-attempt/verdicts.parquet"
for folder in "$results"/tiny/reasoning/*/; do  # the run's reasoning checkpoints
  [ -f "$folder/verdicts.parquet" ] || continue
  mkdir -p "$out/results/tiny/reasoning/$(basename "$folder")"
  cp "$folder"/{samples,verdicts}.parquet "$out/results/tiny/reasoning/$(basename "$folder")/"
done
cf frontier --problems "$results/data/eval.parquet" --merge tiny k2 kinf \
  --verdicts "$out"/results/tiny/reasoning/*/verdicts.parquet --out "$out/frontier.parquet"
cf second-attempt table --verdicts "$ckpt/verdicts.parquet" --out "$out/second_attempts.parquet"
cf show "$out/frontier.parquet"
cf rl-log "$out/rl/$name" --window 10
python -c "import pandas as pd, sys; print(pd.read_parquet(sys.argv[1]).drop(columns=['model', 'setting']).to_string(index=False))" "$out/second_attempts.parquet"
