"""What the tool-use and agentic settings share: prompts around an environment, and
samples from played episodes."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import asdict

from codefrontier.generation import Backend, SamplingSettings
from codefrontier.problems.schema import Problem
from codefrontier.settings.base import SYSTEM_PROMPT, SampleRecord, Setting
from codefrontier.settings.environments import end_episode
from codefrontier.settings.episodes import Episode, run_episodes
from codefrontier.settings.reasoning import INSTRUCTIONS

log = logging.getLogger("codefrontier.settings")


def task_text(problem: Problem) -> str:
    """The statement and what kind of program it asks for."""
    parts = [problem.statement.strip(), INSTRUCTIONS[problem.kind].format(func=problem.func_name)]
    if problem.kind != "stdin" and problem.starter_code:
        parts.append(f"```python\n{problem.starter_code.rstrip()}\n```")
    return "\n\n".join(parts)


class MultiTurnSetting(Setting):
    """A setting whose episodes run several model turns against an environment."""

    guidance: str  # how to work and how to answer, after the task

    @property
    @abstractmethod
    def max_turns(self) -> int:
        """Model turns per episode at evaluation, the answering turn included."""

    @abstractmethod
    def environment(self, problems: Mapping[str, Problem], pool=None):
        """A fresh environment, one per episode (evaluation and GRPO rollouts alike)."""

    def messages(self, problem: Problem) -> list[dict]:
        return [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"{task_text(problem)}\n\n{self.guidance}"}]

    def run(self, backend: Backend, problems: list[Problem], sampling: SamplingSettings,
            progress: bool = True, pool=None, shards=None) -> list[SampleRecord]:
        """The episodes (problem-major) are played in chunks of the backend's
        `rows_per_shard` (the transformers backend: a batch, so every turn of a chunk is
        one batch), each chunk from a fresh backend (start_afresh) with its own seed
        (SamplingSettings.for_shard; the first chunk the job's), so a chunk's samples
        depend on nothing outside it: with `shards` each chunk is kept as it ends, and a
        chunk an earlier run kept is not played again."""
        by_id = {p.problem_id: p for p in problems}
        pairs = [(problem, index) for problem in problems for index in range(sampling.n)]
        size = backend.rows_per_shard or max(1, len(pairs))
        chunks = [pairs[start:start + size] for start in range(0, len(pairs), size)]
        records, taken = [], 0
        for number, chunk in enumerate(chunks):
            name = f"episodes-{number:06d}"
            kept = _kept_chunk(shards, name, chunk)
            if kept is not None:
                records += kept
                taken += 1
                continue
            losses_before = _worker_losses(pool)
            backend.start_afresh()
            played = self._play(backend, chunk, by_id, sampling.for_shard(number), pool, progress)
            if shards is not None:
                shards.put(name, [asdict(r) for r in played],
                           {"judge_worker_losses": _worker_losses(pool) - losses_before})
            records += played
        if shards is not None:
            log.info("%d of %d episode chunks kept from an earlier run, %d played", taken,
                     len(chunks), len(chunks) - taken)
        return records

    def _play(self, backend: Backend, chunk: list[tuple[Problem, int]],
              problems: Mapping[str, Problem], sampling: SamplingSettings, pool,
              progress: bool) -> list[SampleRecord]:
        """One episode per (problem, sample index), played to its end."""
        episodes = []
        for problem, index in chunk:
            environment = self.environment(problems, pool)
            environment.reset(problem_id=problem.problem_id)
            episodes.append(Episode(problem.problem_id, index, self.messages(problem),
                                    environment))
        try:
            run_episodes(backend, episodes, sampling, self.max_turns, progress)
            return [self._record(e) for e in episodes]
        finally:
            for episode in episodes:
                end_episode(episode.environment)

    def _record(self, episode: Episode) -> SampleRecord:
        answer = episode.answer()
        return SampleRecord(
            problem_id=episode.problem_id, sample_id=episode.sample_id, setting=self.name,
            completion=answer.completion, finish_reason=episode.finish_reason,
            prompt_tokens=episode.prompt_tokens, completion_tokens=episode.completion_tokens,
            turns=episode.turns, tool_calls=episode.tool_calls, transcript=episode.transcript,
            episode_error=answer.episode_error, code=answer.code, answer_source=answer.source)


def _kept_chunk(shards, name: str, chunk: list[tuple[Problem, int]]) -> list[SampleRecord] | None:
    """The samples of a chunk that an earlier run of the job kept, if they are this
    chunk's episodes."""
    kept = shards.get(name) if shards is not None else None
    if kept is None or [(r["problem_id"], r["sample_id"]) for r in kept] != [
            (problem.problem_id, index) for problem, index in chunk]:
        return None
    return [SampleRecord(**r) for r in kept]


def _worker_losses(pool) -> int:
    return pool.worker_losses if pool is not None else 0
