#!/usr/bin/env bash
# Repair training with a first-attempt weight, against a finished default run's α curve.
#
#   bash benchmarks/repair_weight.sh [WEIGHT] [RESULTS] [OUT]
#
# From RESULTS (default: results, a finished `make run`): trains the repair run of
# config.yaml (R_inf, from tiny/sft, 20 steps, a quarter replayed) with
# `--first-attempt-weight WEIGHT` (default 0.5), samples and judges it in reasoning as
# the default does, repairs its failures at evaluation, and prints the reasoning frontier
# table with it beside the run's checkpoints, its training log and its repair rates.
set -euo pipefail
weight=${1:-0.5}
results=$(realpath "${2:-results}")
out=$(realpath -m "${3:-results/repair-weight-$weight}")
name=rl-repair-kinf-w$weight
ckpt=$out/results/tiny/reasoning/$name
cf() { HF_HUB_OFFLINE=1 python -m codefrontier.cli "$@"; }
mkdir -p "$ckpt/repair"
cf train grpo --model "$results/tiny/sft" --problems "$results/data/train.parquet" --reward kinf \
  --repair --replay-share 0.25 --replay-buffer 64 --max-feedback-tokens 300 \
  --first-attempt-weight "$weight" --judge-workers 1 --out "$out/rl/$name" \
  --set learning_rate=0.0001 --set max_completion_length=200 --set max_steps=20 \
  --set num_generations=8 --set per_device_train_batch_size=32 --set save_steps=5 --set seed=0 \
  --set temperature=0.3
sampling=(--temperature 0.2 --top-p 1.0 --max-new-tokens 200 --batch-size 80 --seed 0)
cf sample --model "$out/rl/$name" --problems "$results/data/eval.parquet" --setting reasoning \
  --n 5 "${sampling[@]}" --quiet --out "$ckpt/samples.parquet"
cf judge --problems "$results/data/eval.parquet" --samples "$ckpt/samples.parquet" --workers 1 \
  --quiet --out "$ckpt/verdicts.parquet"
cf repair attempt --model "$out/rl/$name" --problems "$results/data/eval.parquet" \
  --samples "$ckpt/samples.parquet" --verdicts "$ckpt/verdicts.parquet" --max-feedback-tokens 300 \
  "${sampling[@]}" --judge-workers 1 --quiet --out "$ckpt/repair/samples.parquet"
cf judge --problems "$results/data/eval.parquet" --samples "$ckpt/repair/samples.parquet" \
  --workers 1 --quiet --out "$ckpt/repair/verdicts.parquet"
for folder in "$results"/tiny/reasoning/*/; do  # the run's reasoning checkpoints
  [ -f "$folder/verdicts.parquet" ] || continue
  mkdir -p "$out/results/tiny/reasoning/$(basename "$folder")"
  cp "$folder"/{samples,verdicts}.parquet "$out/results/tiny/reasoning/$(basename "$folder")/"
done
cf frontier --problems "$results/data/eval.parquet" --merge tiny k2 kinf \
  --verdicts "$out"/results/tiny/reasoning/*/verdicts.parquet --out "$out/frontier.parquet"
cf repair table --verdicts "$ckpt/verdicts.parquet" --out "$out/repair.parquet"
cf show "$out/frontier.parquet"
cf rl-log "$out/rl/$name" --window 10
python -c "import pandas as pd, sys; print(pd.read_parquet(sys.argv[1]).drop(columns=['model', 'setting']).to_string(index=False))" "$out/repair.parquet"
