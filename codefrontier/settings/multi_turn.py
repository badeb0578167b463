"""What the tool-use and agentic settings share: prompts around an environment, and
samples from played episodes."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping

from codefrontier.generation import Backend, SamplingSettings
from codefrontier.problems.schema import Problem
from codefrontier.settings.base import SYSTEM_PROMPT, SampleRecord, Setting
from codefrontier.settings.environments import end_episode
from codefrontier.settings.episodes import Episode, run_episodes
from codefrontier.settings.reasoning import INSTRUCTIONS


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
            progress: bool = True, pool=None) -> list[SampleRecord]:
        by_id = {p.problem_id: p for p in problems}
        episodes = []
        for problem in problems:
            for index in range(sampling.n):
                environment = self.environment(by_id, pool)
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
