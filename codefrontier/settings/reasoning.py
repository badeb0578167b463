"""The single-turn reasoning setting: the problem in, a short reasoning paragraph and
one fenced Python program out (the judge extracts the last fenced block)."""

from __future__ import annotations

from codefrontier.generation import Backend, SamplingSettings
from codefrontier.problems.schema import Problem
from codefrontier.settings.base import SYSTEM_PROMPT, SampleRecord, Setting

INSTRUCTIONS = {
    "stdin": "Write a Python 3 program that reads the input from standard input and "
             "prints the answer to standard output.",
    "call": "Complete the class below in Python 3; it is called as Solution().{func}(...).",
    "function": "Complete the function below in Python 3 (the whole function, with the "
                "imports it needs); it is called as {func}(...).",
}
ANSWER_FORMAT = ("Think briefly about an algorithm that is fast enough for the largest "
                 "inputs, then give your final program in one ```python code block.")


def user_prompt(problem: Problem) -> str:
    parts = [problem.statement.strip(),
             INSTRUCTIONS[problem.kind].format(func=problem.func_name)]
    if problem.kind != "stdin" and problem.starter_code:
        parts.append(f"```python\n{problem.starter_code.rstrip()}\n```")
    parts.append(ANSWER_FORMAT)
    return "\n\n".join(parts)


def messages(problem: Problem) -> list[dict[str, str]]:
    """The conversation a model is given (TRL's conversational prompt format)."""
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_prompt(problem)}]


def answer(reasoning: str, program: str) -> str:
    """An answer in the format the setting asks for."""
    return f"{reasoning.strip()}\n\n```python\n{program.rstrip()}\n```"


class ReasoningSetting(Setting):
    """One turn: the problem in, reasoning and a fenced program out."""

    name = "reasoning"

    def messages(self, problem: Problem) -> list[dict]:
        return messages(problem)

    def run(self, backend: Backend, problems: list[Problem], sampling: SamplingSettings,
            progress: bool = True, pool=None, shards=None) -> list[SampleRecord]:
        generations = backend.generate([messages(p) for p in problems], sampling, progress,
                                       shards=shards)
        return [SampleRecord(problem_id=problem.problem_id, sample_id=index, setting=self.name,
                             completion=g.text, finish_reason=g.finish_reason,
                             prompt_tokens=g.prompt_tokens, completion_tokens=g.completion_tokens)
                for problem, samples in zip(problems, generations, strict=True)
                for index, g in enumerate(samples)]
