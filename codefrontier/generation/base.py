"""The backend interface: conversations in, n generations per conversation out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True)
class SamplingSettings:
    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 1024
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n < 1 or self.max_new_tokens < 1:
            raise ValueError("n and max_new_tokens must be at least 1")
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError("temperature must be >= 0 and top_p in (0, 1]")


@dataclass(frozen=True)
class Generation:
    """One completion. finish_reason: `stop` (the model ended its turn) or `length` (the
    token budget ran out, which the judge reports as a truncated format error).
    The token ids (the completion's with its stop token, and the rendered prompt's) let
    multi-turn settings parse tool calls with the tokenizer's response parser."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    token_ids: tuple[int, ...] = ()
    prompt_token_ids: tuple[int, ...] = ()


class Backend(ABC):
    """Generates assistant turns for chat conversations with the model's chat template."""

    name: str

    tokenizer = None  # the model's tokenizer (chat template, tool-call parser)

    @abstractmethod
    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None) -> list[list[Generation]]:
        """settings.n generations for each conversation, in order. `tools` (functions or
        JSON schemas) are rendered into the prompt by the chat template."""

    def close(self) -> None:  # noqa: B027 - backends without resources need nothing
        """Release the model (GPU memory)."""
