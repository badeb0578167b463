"""The backend interface: conversations in, n generations per conversation out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

# seeds of a job's shards lie this far apart (`SamplingSettings.for_shard`)
SHARD_SEED_STRIDE = 1_000_003


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

    def for_shard(self, number: int) -> SamplingSettings:
        """The settings of shard `number` of a job that samples in independent shards
        (a chunk of multi-turn episodes): the job's, with a seed of the shard's own.
        Shard 0 keeps the job's seed, so a job of one shard samples as it did before
        jobs had shards."""
        return replace(self, seed=self.seed + number * SHARD_SEED_STRIDE)


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

    @classmethod
    def from_dict(cls, fields: dict) -> Generation:
        """A generation from its `dataclasses.asdict` (read back from JSON: lists for
        tuples)."""
        return cls(**{**fields, "token_ids": tuple(fields["token_ids"]),
                      "prompt_token_ids": tuple(fields["prompt_token_ids"])})


class Backend(ABC):
    """Generates assistant turns for chat conversations with the model's chat template."""

    name: str

    tokenizer = None  # the model's tokenizer (chat template, tool-call parser)

    # the rows (conversations x n) a shard of a resumable job holds at most (the
    # transformers backend: a batch); None: no bound, one shard
    rows_per_shard: int | None = None

    @abstractmethod
    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None,
                 shards=None) -> list[list[Generation]]:
        """settings.n generations for each conversation, in order. `tools` (functions or
        JSON schemas) are rendered into the prompt by the chat template. With `shards`
        (a base.shards.ShardStore) each pass's generations are kept as it finishes, and
        the passes an earlier run of the job kept are not generated again."""

    def start_afresh(self) -> None:  # noqa: B027 - backends that keep nothing need nothing
        """Forget what earlier calls left behind (the transformers backend's prefix
        cache), so that what follows depends on nothing generated before."""

    def close(self) -> None:  # noqa: B027 - backends without resources need nothing
        """Release the model (GPU memory)."""
