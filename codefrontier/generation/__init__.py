"""Generation backends: one interface, `transformers` (CPU or GPU) and `vllm` (GPU)."""

from codefrontier.generation.base import Backend, Generation, SamplingSettings, load_backend

__all__ = ["Backend", "Generation", "SamplingSettings", "load_backend"]
