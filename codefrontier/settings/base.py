"""The seam between inference settings: a setting turns problems into samples.

A setting owns how a problem is put to the model and how many model turns a
sample takes: `reasoning` is one turn; `tool_use` and `agentic` run several turns (the model
calls Python or a terminal, sees the result, goes on) through the same backend
(settings/episodes.py), and every setting returns the same records.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import pyarrow as pa

from codefrontier.generation import Backend, SamplingSettings
from codefrontier.problems.schema import Problem

# Every setting opens with it (a chat template's default system prompt, such as Qwen's,
# would otherwise be put in front of every prompt).
SYSTEM_PROMPT = "You are an expert Python programmer."

MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
SAMPLES_SCHEMA = pa.schema([
    ("problem_id", pa.string()),
    ("sample_id", pa.int64()),          # 0..n-1 within a problem
    ("setting", pa.string()),
    ("completion", pa.string()),        # the final answer text the judge extracts from
    ("finish_reason", pa.string()),     # stop | length (token budget exhausted)
    ("prompt_tokens", pa.int64()),
    ("completion_tokens", pa.int64()),  # summed over turns
    ("turns", pa.int64()),              # model turns
    ("tool_calls", pa.int64()),         # tool calls / terminal actions
    ("transcript", pa.list_(MESSAGE)),  # every message after the system prompt
    ("episode_error", pa.string()),     # a format error the episode itself found, or null
    ("code", pa.string()),              # the program handed in directly (agentic), or null
    ("answer_source", pa.string()),     # final_turn | submitted:<path> | none
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
    tool_calls: int = 0
    transcript: list[dict] = field(default_factory=list)
    episode_error: str | None = None
    code: str | None = None
    answer_source: str = "final_turn"


class Setting(ABC):
    name: str

    @abstractmethod
    def messages(self, problem: Problem) -> list[dict]:
        """The prompt: the conversation the model is given (TRL's conversational format)."""

    @abstractmethod
    def run(self, backend: Backend, problems: list[Problem], sampling: SamplingSettings,
            progress: bool = True, pool=None, shards=None) -> list[SampleRecord]:
        """sampling.n samples per problem, in problem order. `pool`: a JudgePool, for
        settings that run programs during an episode (needs_judge_pool). `shards`: the
        job's base.shards.ShardStore, in which the setting keeps its finished work as it
        goes (and takes what an earlier run kept), in pieces that make the samples come
        out as an uninterrupted job's: one turn hands it to the backend (a shard per
        batch), episodes are played in chunks."""

    def needs_judge_pool(self) -> bool:
        return False
