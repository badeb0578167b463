"""The processor kinds vLLM's CPU build tells apart, and this machine shown as each.

vLLM's CPU build loads one of three kernel libraries by what torch reads from CPUID
(vllm/platforms/cpu.py, `import_kernels`): `_C` with AVX-512 BF16, `_C_AVX512` with
AVX-512, `_C_AVX2` otherwise. Each packs a linear layer's weight into a oneDNN handle
(and leaves an empty parameter behind) when oneDNN can build a matmul in the engine's
dtype, bf16 on the CPU: oneDNN has one from AVX512_CORE up (and on AMX, vLLM's own
packed kernels); on AVX2 it refuses ("could not create a primitive descriptor"), and
vLLM keeps torch's linear over the live weight
(vllm.model_executor.layers.utils.dispatch_cpu_unquantized_gemm). Which of the two
happens decides whether TRL's weight sync needs codefrontier's trainable_cpu_engine.

A machine shows itself as a lower kind to a process by answering torch's CPUID
queries as that kind (before vLLM loads) and capping oneDNN's JIT at its instruction
set (ONEDNN_MAX_CPU_ISA, oneDNN's documented control); tests/test_vllm.py checks on an
emulated Intel Haswell (QEMU, a real CPUID without AVX-512) that the AVX2 kind's
oneDNN refuses the bf16 matmul as the cap makes it refuse here.

    python tests/vllm_kinds.py sync MODEL PROBLEMS OUT   (children of tests/test_vllm.py,
    python tests/vllm_kinds.py onednn                     run as a kind by run_as)

`sync` trains two GRPO steps in vLLM's colocate mode, once with trainable_cpu_engine and
once without; `onednn` asks vLLM's oneDNN for a bf16 matmul handle as its dispatch does.
Each prints one JSON line: the library loaded and what happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MARK = "vllm-kinds: "  # the child's result line (vLLM and TRL write to stdout too)
SYNC_FAILED = "weight_loader"  # TRL's sync into a packed layer: no attribute 'weight_loader'


@dataclass(frozen=True)
class VllmCpuKind:
    name: str
    library: str  # the kernel library vLLM loads for it
    needs: str  # the torch.cpu query this machine must answer True to show this kind
    hidden: tuple[str, ...]  # torch.cpu queries answered False in its processes
    onednn_isa: str  # ONEDNN_MAX_CPU_ISA
    packs: bool  # whether vLLM packs its linear weights (bf16 matmul in oneDNN)

    def available(self) -> bool:
        import torch

        return getattr(torch.cpu, self.needs)()

    def environment(self) -> dict[str, str]:
        return {"ONEDNN_MAX_CPU_ISA": self.onednn_isa,
                "CODEFRONTIER_TEST_HIDDEN_CPU": ",".join(self.hidden)}


KINDS = (
    VllmCpuKind("avx2", "_C_AVX2.abi3.so", "_is_avx2_supported",
                ("_is_avx512_supported", "_is_avx512_bf16_supported",
                 "_is_amx_tile_supported"), "AVX2", packs=False),
    VllmCpuKind("avx512", "_C_AVX512.abi3.so", "_is_avx512_supported",
                ("_is_avx512_bf16_supported", "_is_amx_tile_supported"), "AVX512_CORE",
                packs=True),
    VllmCpuKind("avx512_bf16", "_C.abi3.so", "_is_avx512_bf16_supported",
                ("_is_amx_tile_supported",), "AVX512_CORE_BF16", packs=True),
)
KIND_BY_NAME = {kind.name: kind for kind in KINDS}


def hide_cpu_features() -> None:
    """Answer the torch.cpu queries named in CODEFRONTIER_TEST_HIDDEN_CPU with False (in
    a child, before vLLM loads its kernels)."""
    import torch

    for query in filter(None, os.environ.get("CODEFRONTIER_TEST_HIDDEN_CPU", "").split(",")):
        setattr(torch.cpu, query, lambda: False)


def loaded_vllm_libraries() -> list[str]:
    """vLLM's kernel libraries mapped into this process."""
    maps = Path("/proc/self/maps").read_text().split()
    return sorted({Path(p).name for p in maps if "/vllm/_C" in p and p.endswith(".so")})


GRPO = {"max_steps": 2, "num_generations": 2, "per_device_train_batch_size": 2,
        "max_completion_length": 200, "temperature": 1.0, "save_strategy": "no",
        "logging_steps": 1, "learning_rate": 5e-3, "use_vllm": True,
        "vllm_mode": "colocate", "vllm_importance_sampling_correction": True}
DIFFERENCE = "sampling/sampling_logp_difference/mean"


def alternating(completions, **_) -> list[float]:
    """A reward that differs within every group of two: the policy really moves."""
    return [float(index % 2) for index in range(len(completions))]


def two_steps(model: str, problems: str, out: Path, live_weights: bool) -> dict:
    """Two GRPO steps; the engine's log-probability difference per step (TRL's measure:
    float noise when the synced weights reached the engine), or the sync's failure."""
    from transformers import Trainer

    from codefrontier.train import grpo

    logged: list[float] = []
    log = Trainer.log

    def recording(self, logs, *args, **kwargs):
        if DIFFERENCE in logs:
            logged.append(logs[DIFFERENCE])
        return log(self, logs, *args, **kwargs)

    Trainer.log = recording
    engine = grpo.engine_for_weight_sync
    if not live_weights:
        grpo.engine_for_weight_sync = lambda config: contextlib.nullcontext()
    try:
        grpo.run_grpo(model, problems, "kinf", out, GRPO, judge_workers=1,
                      reward_function=alternating)
    except AttributeError as error:
        if SYNC_FAILED not in str(error):
            raise
        return {"synced": False, "error": str(error)}
    finally:
        Trainer.log, grpo.engine_for_weight_sync = log, engine
    return {"synced": True, "logp_differences": logged}


def sync(model: str, problems: str, out: str) -> dict:
    live = two_steps(model, problems, Path(out) / "live", live_weights=True)
    packed = two_steps(model, problems, Path(out) / "without", live_weights=False)
    return {"libraries": loaded_vllm_libraries(), "live": live, "without": packed}


def onednn() -> dict:
    """Whether vLLM's oneDNN builds a bf16 matmul for a linear weight (what
    dispatch_cpu_unquantized_gemm tries before it falls back to torch's linear)."""
    import torch
    import vllm._custom_ops as ops

    weight = torch.ones(64, 32, dtype=torch.bfloat16)
    try:
        ops.create_onednn_mm(weight.t(), 32)
        built = True
    except RuntimeError:
        built = False
    return {"libraries": loaded_vllm_libraries(), "bf16_matmul": built}


CHILDREN = {"sync": sync, "onednn": onednn}


def run_as(kind: VllmCpuKind | None, command: str, *args, emulator: tuple[str, ...] = (),
           timeout_s: float = 1200) -> dict:
    """Run a child (`sync` or `onednn`) as `kind` (None: as the processor it runs on,
    under `emulator` when one is given) and return its result."""
    env = {**os.environ, **(kind.environment() if kind else {}), "HF_HUB_OFFLINE": "1",
           "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    done = subprocess.run([*emulator, sys.executable, __file__, command, *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"the {command} child as {kind.name if kind else emulator} "
                           f"failed:\n{done.stderr[-4000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith(MARK))
    return json.loads(line.removeprefix(MARK))


if __name__ == "__main__":
    hide_cpu_features()
    print(MARK + json.dumps(CHILDREN[sys.argv[1]](*sys.argv[2:])), flush=True)
