"""The backends by name: each is imported only when asked for (vLLM loads CUDA, or its CPU
build, at import)."""

from __future__ import annotations

from codefrontier.generation.base import Backend

BACKENDS = ("transformers", "vllm")


def load_backend(name: str, model: str, **options) -> Backend:
    if name == "transformers":
        from codefrontier.generation.transformers_backend import TransformersBackend

        return TransformersBackend(model, **options)
    if name == "vllm":
        from codefrontier.generation.vllm_backend import VLLMBackend

        return VLLMBackend(model, **options)
    raise ValueError(f"unknown backend {name!r}: use {' or '.join(BACKENDS)}")
