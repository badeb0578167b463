"""The single-turn reasoning setting: the problem in, a short reasoning paragraph and
one fenced Python program out (the judge extracts the last fenced block)."""

from __future__ import annotations

from codefrontier.problems import Problem

INSTRUCTIONS = {
    "stdin": "Write a Python 3 program that reads the input from standard input and "
             "prints the answer to standard output.",
    "call": "Complete the class below in Python 3; it is called as Solution().{func}(...).",
}
ANSWER_FORMAT = ("Think briefly about an algorithm that is fast enough for the largest "
                 "inputs, then give your final program in one ```python code block.")


def user_prompt(problem: Problem) -> str:
    parts = [problem.statement.strip(),
             INSTRUCTIONS[problem.kind].format(func=problem.func_name)]
    if problem.kind == "call" and problem.starter_code:
        parts.append(f"```python\n{problem.starter_code.rstrip()}\n```")
    parts.append(ANSWER_FORMAT)
    return "\n\n".join(parts)


def messages(problem: Problem) -> list[dict[str, str]]:
    """The conversation a model is given (TRL's conversational prompt format)."""
    return [{"role": "user", "content": user_prompt(problem)}]


def answer(reasoning: str, program: str) -> str:
    """An answer in the format the setting asks for."""
    return f"{reasoning.strip()}\n\n```python\n{program.rstrip()}\n```"
