"""The seam between inference settings: a setting turns problems into samples.

A setting owns how a problem is put to the model and how many model turns a
sample takes: `reasoning` is one turn; the tool-use and agentic settings run
several turns (the model calls Python or a terminal, sees the result, goes on)
through the same backend, and return the same records.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import pyarrow as pa

from codefrontier.generation import Backend, SamplingSettings
from codefrontier.problems import Problem

# Every setting opens with it (a chat template's default system prompt, such as Qwen's,
# would otherwise be put in front of every prompt).
SYSTEM_PROMPT = "You are an expert Python programmer."

SAMPLES_SCHEMA = pa.schema([
    ("problem_id", pa.string()),
    ("sample_id", pa.int64()),          # 0..n-1 within a problem
    ("setting", pa.string()),
    ("completion", pa.string()),        # the final answer text the judge extracts from
    ("finish_reason", pa.string()),     # stop | length (token budget exhausted)
    ("prompt_tokens", pa.int64()),
    ("completion_tokens", pa.int64()),  # summed over turns
    ("turns", pa.int64()),
])


@dataclass(frozen=True)
class SampleRecord:
    problem_id: str
    sample_id: int
    setting: str
    completion: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    turns: int = 1


class Setting(ABC):
    name: str

    @abstractmethod
    def run(self, backend: Backend, problems: list[Problem], sampling: SamplingSettings,
            progress: bool = True) -> list[SampleRecord]:
        """sampling.n samples per problem, in problem order."""


def get_setting(name: str) -> Setting:
    from codefrontier.settings.reasoning import ReasoningSetting

    settings = {"reasoning": ReasoningSetting}
    if name not in settings:
        raise ValueError(f"unknown setting {name!r}: available {', '.join(settings)} "
                         f"(tool_use and agentic are planned)")
    return settings[name]()
