"""The generation options of `sample` and `second-attempt sample`, with their one default each:
the commands' flags (`base.options.add_options`) and the workflow's command lines
(`base.options.command_line` over the config's `sampling` block) both come from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from codefrontier.base.options import option
from codefrontier.generation.backends import BACKENDS
from codefrontier.generation.base import SamplingSettings


@dataclass(frozen=True)
class GenerationOptions:
    backend: str = option("transformers", "generation backend", choices=BACKENDS)
    temperature: float = option(1.0, "sampling temperature (0: greedy)")
    top_p: float = option(1.0, "nucleus sampling: the probability mass kept")
    max_new_tokens: int = option(1024, "tokens per model turn")
    batch_size: int = option(16, "transformers backend: conversations per forward pass")
    tensor_parallel_size: int = option(1, "vllm backend: GPUs per engine")
    gpu_memory_utilization: float | None = option(
        None, "vllm backend: the share of the GPU's memory (on a CPU: of RAM) the engine "
              "reserves (unset: 0.9 of a GPU, 2 GiB of RAM)", kind=float)
    max_model_len: int | None = option(None, "vllm backend: the longest sequence (unset: "
                                             "the model's)", kind=int)
    seed: int = option(0, "sampling seed")
    prefix_cache_mb: float = option(2048.0, "transformers backend: keys and values kept for "
                                            "prompts that extend earlier ones, an episode's "
                                            "next turn (0: off)")

    def sampling(self, n: int) -> SamplingSettings:
        return SamplingSettings(n=n, temperature=self.temperature, top_p=self.top_p,
                                max_new_tokens=self.max_new_tokens, seed=self.seed)

    def backend_options(self) -> dict:
        """The keyword arguments of the chosen backend's constructor."""
        if self.backend == "transformers":
            return {"batch_size": self.batch_size, "prefix_cache_mb": self.prefix_cache_mb}
        return {"tensor_parallel_size": self.tensor_parallel_size, "seed": self.seed,
                "gpu_memory_utilization": self.gpu_memory_utilization,
                "max_model_len": self.max_model_len}


@dataclass(frozen=True)
class SampleOptions(GenerationOptions):
    """`sample`: the generation options, how many samples and of how many problems."""

    n: int = option(4, "samples per problem")
    limit: int | None = option(None, "only the first N problems (unset: all)", kind=int)
