"""Generation with vLLM (GPU): n samples per prompt in one request, imported lazily."""

from __future__ import annotations

from codefrontier.generation.base import Backend, Generation, SamplingSettings


def tool_schema(tool) -> dict:
    """A tool as the JSON schema vLLM's chat() takes (functions: from their signature and
    docstring, as transformers renders them)."""
    if isinstance(tool, dict):
        return tool
    from transformers.utils import get_json_schema

    return get_json_schema(tool)


class VLLMBackend(Backend):
    name = "vllm"

    def __init__(self, model: str, tensor_parallel_size: int = 1,
                 gpu_memory_utilization: float = 0.9, max_model_len: int | None = None,
                 seed: int = 0) -> None:
        try:
            from vllm import LLM
        except ImportError as error:
            raise RuntimeError("the vllm backend needs the gpu extra: pip install "
                               "'codefrontier[gpu]' on a machine with a GPU") from error
        self.llm = LLM(model=model, tensor_parallel_size=tensor_parallel_size,
                       gpu_memory_utilization=gpu_memory_utilization,
                       max_model_len=max_model_len, seed=seed)
        self.tokenizer = self.llm.get_tokenizer()

    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None) -> list[list[Generation]]:
        from vllm import SamplingParams

        params = SamplingParams(n=settings.n, temperature=settings.temperature,
                                top_p=settings.top_p, max_tokens=settings.max_new_tokens,
                                seed=settings.seed)
        schemas = [tool_schema(t) for t in tools] if tools else None
        outputs = self.llm.chat(conversations, params, use_tqdm=progress, tools=schemas)
        return [[Generation(text=choice.text,
                            finish_reason="length" if choice.finish_reason == "length" else "stop",
                            prompt_tokens=len(output.prompt_token_ids),
                            completion_tokens=len(choice.token_ids),
                            token_ids=tuple(choice.token_ids),
                            prompt_token_ids=tuple(output.prompt_token_ids))
                 for choice in output.outputs] for output in outputs]

    def close(self) -> None:
        del self.llm
