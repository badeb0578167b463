"""Generation backends: one interface, `transformers` (CPU or GPU) and `vllm` (GPU)."""

from codefrontier.generation.backends import load_backend
from codefrontier.generation.base import Backend, Generation, SamplingSettings

__all__ = ["Backend", "Generation", "SamplingSettings", "load_backend"]
