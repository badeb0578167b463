#!/usr/bin/env bash
# GPU path check, for a machine with a CUDA GPU and `pip install -e '.[gpu]'` done
# (vLLM needs the CUDA build of PyTorch). Nothing is downloaded: the model is built
# here (`codefrontier model init`, a real Qwen2 architecture) from the bundled suite.
#
#   bash benchmarks/gpu_check.sh [WORKDIR]
#
# 1. builds the problems, SFT pairs and a Qwen2 model (hidden 512, 8 layers);
# 2. samples 4 problems x 4 with the vLLM backend and judges the samples;
# 3. runs two GRPO steps with vLLM in colocate mode (bf16) and saves the checkpoint;
# 4. samples the GRPO checkpoint with vLLM again (the saved folder loads as is);
# 5. runs two steps of repair training (first attempt, feedback, second attempt) with
#    vLLM in colocate mode.
set -euo pipefail
work=${1:-results/gpu-check}
mkdir -p "$work"
export HF_HUB_OFFLINE=1
cf() { python -m codefrontier.cli "$@"; }
start=$(date +%s)

python -c "import torch, vllm; assert torch.cuda.is_available(); print('torch', torch.__version__, 'vllm', vllm.__version__, torch.cuda.get_device_name(0))"
[ -f "$work/train.parquet" ] || cf problems build --split train --out "$work/train.parquet"
[ -f "$work/eval.parquet" ] || cf problems build --split eval --out "$work/eval.parquet"
[ -f "$work/sft.parquet" ] || cf problems sft --split train --out "$work/sft.parquet"
[ -d "$work/model" ] || cf model init --out "$work/model" --texts "$work/train.parquet" "$work/sft.parquet" \
    --hidden-size 512 --num-hidden-layers 8 --intermediate-size 1408

cf sample --backend vllm --model "$work/model" --problems "$work/eval.parquet" --limit 4 --n 4 \
    --max-new-tokens 128 --out "$work/vllm-samples.parquet" --quiet
cf judge --problems "$work/eval.parquet" --samples "$work/vllm-samples.parquet" \
    --out "$work/vllm-verdicts.parquet" --quiet

cf train grpo --model "$work/model" --problems "$work/train.parquet" --reward k2 --out "$work/rl-k2" \
    --set max_steps=2 --set use_vllm=true --set vllm_mode=colocate \
    --set vllm_gpu_memory_utilization=0.3 --set bf16=true --set num_generations=8 \
    --set per_device_train_batch_size=16 --set max_completion_length=128 --set save_steps=1
python - "$work" <<'PY'
import json, sys
from pathlib import Path
work = Path(sys.argv[1])
rewards = [json.loads(line) for line in (work / "rl-k2.work" / "rewards.jsonl").open()]
print("GRPO reward calls:", len(rewards), "mean rewards:", [round(r["mean_reward"], 3) for r in rewards])
print("outcome mix of the last call:", {k: round(v, 3) for k, v in rewards[-1].items() if k.startswith("outcome/")})
PY
cf sample --backend vllm --model "$work/rl-k2" --problems "$work/eval.parquet" --limit 2 --n 2 \
    --max-new-tokens 64 --out "$work/rl-samples.parquet" --quiet
cf train grpo --model "$work/model" --problems "$work/train.parquet" --reward kinf --repair \
    --replay-share 0.5 --out "$work/rl-repair-kinf" \
    --set max_steps=2 --set use_vllm=true --set vllm_mode=colocate \
    --set vllm_gpu_memory_utilization=0.3 --set bf16=true --set num_generations=8 \
    --set per_device_train_batch_size=16 --set max_completion_length=128 --set save_steps=1
cat "$work/rl-repair-kinf.work/repair.jsonl"
echo "gpu check passed in $(( $(date +%s) - start )) s"
