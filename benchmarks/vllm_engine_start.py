"""How long vLLM's engine takes to start on this machine, compiled and eager.

Starts the engine on a checkpoint twice, once with vLLM's default compilation and once
eager (`enforce_eager`, the CPU default of codefrontier's vllm backend), and generates
64 completions of 64 tokens with each: the start and generation seconds, and whether
the two wrote the same text. Each start runs in a fresh process (vLLM keeps state per
process); the compile cache under ~/.cache/vllm is keyed by the checkpoint's path, so
a checkpoint's first compiled start is the one a sample job pays.

    python benchmarks/vllm_engine_start.py CHECKPOINT
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

PROMPTS = 64
TOKENS = 64
MARK = "engine-start: "  # the child's result line (vLLM writes to stdout too)


def one_start(checkpoint: str, eager: bool) -> dict:
    from vllm import SamplingParams

    from codefrontier.generation.vllm_backend import load_llm

    start = time.perf_counter()
    llm = load_llm(checkpoint, enforce_eager=eager, seed=0)
    started = time.perf_counter()
    outputs = llm.generate(["def solve():"] * PROMPTS,
                           SamplingParams(max_tokens=TOKENS, temperature=0), use_tqdm=False)
    return {"eager": eager, "start_s": round(started - start, 1),
            "generate_s": round(time.perf_counter() - started, 2),
            "texts": [o.outputs[0].text for o in outputs]}


def main() -> None:
    if len(sys.argv) == 3:  # the child: one engine
        print(MARK + json.dumps(one_start(sys.argv[1], sys.argv[2] == "eager")))
        return
    checkpoint = sys.argv[1]
    runs = []
    for mode in ("compiled", "eager"):
        done = subprocess.run([sys.executable, __file__, checkpoint, mode], check=True,
                              capture_output=True, text=True)
        line = next(line for line in done.stdout.splitlines() if line.startswith(MARK))
        runs.append(json.loads(line.removeprefix(MARK)))
    for run in runs:
        print(f"{'eager' if run['eager'] else 'compiled'}: engine start {run['start_s']} s, "
              f"{PROMPTS} x {TOKENS} tokens in {run['generate_s']} s")
    print(f"same texts: {runs[0]['texts'] == runs[1]['texts']}")


if __name__ == "__main__":
    main()
