"""The scripted SFT demonstrations of each setting (conversations.py builds the records).

A demonstration plays a reference program through the setting's own environment: the
tool results are real (the judge's sandbox, a real terminal), so SFT shows the model
exactly the observations it will see. `turns(problem, plan, program, environment)` gives
the model's turns and what came back; `fix_turns(problem, plan, program, draft,
environment)` a broken first draft, its failed run and the fix (None when the draft does
not fail there). `DEMONSTRATIONS` below names each setting's pair, by the setting's
name in the settings registry (tests/test_registries.py checks that every setting has
one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codefrontier.registry import Registry
from codefrontier.settings import reasoning
from codefrontier.settings.environments import example_command
from codefrontier.settings.examples import statement_examples

FIX_PLANS = {"tool_use": "{what}, so I fix the program.",
             "agentic": "{what}, so I fix solution.py and run it again."}
SOLUTION_FILE = "solution.py"


def _call(name: str, **arguments) -> dict:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def first_example(problem) -> tuple[str, str]:
    examples = statement_examples(problem.statement)
    if not examples:
        raise ValueError(f"{problem.problem_id}: the statement shows no example to run")
    return examples[0]


def _check_ran(problem, observation: str, success: str, expected: str) -> None:
    """A reference program must pass its own example: anything else is a bug here."""
    if _failed(observation, success, expected):
        raise RuntimeError(f"{problem.problem_id}: the reference failed its first example "
                           f"({expected.strip()!r} expected):\n{observation}")


def broken_draft(program: str, draft: str) -> str:
    """A first draft that is wrong in a way a run on the example shows."""
    lines = program.rstrip().splitlines()
    kept = len(lines) - 1 if draft == "dropped_last_line" else (len(lines) + 1) // 2
    return "\n".join(lines[:max(1, kept)]) + "\n"


def _failed(observation: str, success: str, expected: str) -> bool:
    """Did a run on the example fail (no success status, or not the expected output)?"""
    return not observation.startswith(success) or expected.strip() not in observation


def _fix_plan(setting_name: str, observation: str, success: str) -> str:
    what = "The output is not the expected one" if observation.startswith(success) else \
        "The run failed"
    return FIX_PLANS[setting_name].format(what=what)


def reasoning_turns(problem, plan: str, program: str, environment=None) -> list[dict]:
    return [{"role": "assistant", "content": reasoning.answer(plan, program)}]


def _python_turn(plan: str, code: str, given: str, result: str) -> list[dict]:
    """The model runs `code` on the example with the python tool; the tool answers."""
    return [{"role": "assistant", "content": f"{plan} I test it on the first example.",
             "tool_calls": [_call("python", code=code, stdin=given)]},
            {"role": "tool", "name": "python", "content": result}]


def _bash_turn(content: str, command: str, ran: str) -> list[dict]:
    return [{"role": "assistant", "content": content,
             "tool_calls": [_call("bash", command=command)]},
            {"role": "tool", "name": "bash", "content": ran}]


def _first_bash_content(plan: str) -> str:
    return f"{plan} I write {SOLUTION_FILE} and run it on the first example."


def _submission(submitted: str) -> list[dict]:
    """Submit solution.py after a good run, and close."""
    return [{"role": "assistant", "content": "It works on the example, so I submit it.",
             "tool_calls": [_call("submit", path=SOLUTION_FILE)]},
            {"role": "tool", "name": "submit", "content": submitted},
            {"role": "assistant", "content": f"I submitted {SOLUTION_FILE}."}]


def tool_use_turns(problem, plan: str, program: str, environment) -> list[dict]:
    """Run the program on the first example with the python tool, then answer."""
    given, expected = first_example(problem)
    result = environment.python(code=program, stdin=given)
    _check_ran(problem, result, "exit status: 0", expected)
    return [*_python_turn(plan, program, given, result),
            {"role": "assistant",
             "content": reasoning.answer("The output matches the expected output.", program)}]


def agentic_turns(problem, plan: str, program: str, environment) -> list[dict]:
    """Write solution.py and run it on examples/1.in in one command, submit, close."""
    _, expected = first_example(problem)
    command = write_and_run(problem, program)
    ran = environment.bash(command=command)
    _check_ran(problem, ran, "exit code 0", expected)
    return [*_bash_turn(_first_bash_content(plan), command, ran),
            *_submission(environment.submit(path=SOLUTION_FILE))]


def write_and_run(problem, program: str) -> str:
    return (f"cat > {SOLUTION_FILE} << 'EOF'\n{program.rstrip()}\nEOF\n"
            f"{example_command(problem, SOLUTION_FILE)}")


def tool_use_fix_turns(problem, plan: str, program: str, draft: str,
                       environment) -> list[dict] | None:
    """A broken draft run on the first example, then the fixed program as the answer;
    None when the draft does not fail there."""
    given, expected = first_example(problem)
    broken = broken_draft(program, draft)
    result = environment.python(code=broken, stdin=given)
    if not _failed(result, "exit status: 0", expected):
        return None
    return [*_python_turn(plan, broken, given, result),
            {"role": "assistant", "content": reasoning.answer(
                _fix_plan("tool_use", result, "exit status: 0"), program)}]


def agentic_fix_turns(problem, plan: str, program: str, draft: str,
                      environment) -> list[dict] | None:
    """A broken solution.py run on examples/1.in, rewritten and rerun, then submitted;
    None when the draft does not fail there."""
    _, expected = first_example(problem)
    first = write_and_run(problem, broken_draft(program, draft))
    ran_first = environment.bash(command=first)
    if not _failed(ran_first, "exit code 0", expected):
        return None
    second = write_and_run(problem, program)
    ran_second = environment.bash(command=second)
    _check_ran(problem, ran_second, "exit code 0", expected)
    return [*_bash_turn(_first_bash_content(plan), first, ran_first),
            *_bash_turn(_fix_plan("agentic", ran_first, "exit code 0"), second, ran_second),
            *_submission(environment.submit(path=SOLUTION_FILE))]


@dataclass(frozen=True)
class Demonstration:
    turns: Callable  # (problem, plan, program, environment) -> the played turns
    fix_turns: Callable | None = None  # (..., draft, environment) -> turns or None


DEMONSTRATIONS: Registry[Demonstration] = Registry("demonstration")
DEMONSTRATIONS.add("reasoning", Demonstration(reasoning_turns))
DEMONSTRATIONS.add("tool_use", Demonstration(tool_use_turns, tool_use_fix_turns))
DEMONSTRATIONS.add("agentic", Demonstration(agentic_turns, agentic_fix_turns))


def demonstration(setting_name: str) -> Demonstration:
    if setting_name not in DEMONSTRATIONS:
        raise ValueError(f"the {setting_name} setting has no SFT demonstration: add one "
                         f"to sftdata/demonstrations.py (those there: "
                         f"{', '.join(DEMONSTRATIONS)})")
    return DEMONSTRATIONS[setting_name]
