"""SFT examples from the bundled families, one per setting and reference program.

For every train instance and each of its references (efficient and slow), one
example per setting:

* reasoning: a one-sentence plan that fits the program, then the fenced program;
* tool_use: the plan and a `python` call that runs the program on the statement's
  first example, the tool's real output, then the final fenced program;
* agentic: a `bash` call that writes solution.py and runs it on examples/1.in, the
  terminal's real output, a `submit` call, its result, and a closing line.

The tool results come from the settings' own environments, driven by these scripted
actions (the judge's sandbox and a real terminal), so SFT shows the model exactly
the observations it will see. The SFT policy so starts out with both behaviours
(efficient and slow), the raw material that rewards of different strictness pull
apart, in every setting's protocol.

Schema (parquet; TRL's conversational language-modeling format, trained on the
assistant turns only):
    problem_id   str
    variant      str   efficient | slow
    setting      str   reasoning | tool_use | agentic
    messages     str   JSON list of messages: system, user, assistant (with
                       tool_calls), tool, ...
    tools        str   JSON list of the tools' schemas (null for reasoning)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection

import pyarrow as pa

from codefrontier.settings import reasoning
from codefrontier.settings.base import get_setting
from codefrontier.settings.environments import end_episode, example_command
from codefrontier.settings.episodes import environment_tools
from codefrontier.settings.examples import statement_examples
from codefrontier.suite.build import instances, to_problem
from codefrontier.suite.spec import Instance

EFFICIENT_PLANS = (
    "The input is large, so I keep running state and answer in one pass.",
    "Nested loops would be too slow for the largest inputs; one pass with the right "
    "bookkeeping is enough.",
    "I avoid rescanning: each element is handled in about constant or logarithmic time.",
)
SLOW_PLANS = (
    "The simplest correct approach is to check every candidate directly.",
    "I follow the definition literally and loop over all possibilities.",
    "A direct scan for each position is easy to get right.",
)
SFT_SCHEMA = pa.schema([
    ("problem_id", pa.string()),
    ("variant", pa.string()),
    ("setting", pa.string()),
    ("messages", pa.string()),
    ("tools", pa.string()),
])
SOLUTION_FILE = "solution.py"


def _pick(options: tuple[str, ...], key: str) -> str:
    return options[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(options)]


def _call(name: str, **arguments) -> dict:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def first_example(problem) -> tuple[str, str]:
    examples = statement_examples(problem.statement)
    if not examples:
        raise ValueError(f"{problem.problem_id}: the statement shows no example to run")
    return examples[0]


def _check_ran(problem, observation: str, success: str, expected: str) -> None:
    """A reference program must pass its own example: anything else is a bug here."""
    if not observation.startswith(success) or expected.strip() not in observation:
        raise RuntimeError(f"{problem.problem_id}: the reference failed its first example "
                           f"({expected.strip()!r} expected):\n{observation}")


def reasoning_turns(problem, plan: str, program: str, environment=None) -> list[dict]:
    return [{"role": "assistant", "content": reasoning.answer(plan, program)}]


def tool_use_turns(problem, plan: str, program: str, environment) -> list[dict]:
    """Run the program on the first example with the python tool, then answer."""
    given, expected = first_example(problem)
    call = _call("python", code=program, stdin=given)
    result = environment.python(code=program, stdin=given)
    _check_ran(problem, result, "exit status: 0", expected)
    return [{"role": "assistant", "content": f"{plan} I test it on the first example.",
             "tool_calls": [call]},
            {"role": "tool", "name": "python", "content": result},
            {"role": "assistant",
             "content": reasoning.answer("The output matches the expected output.", program)}]


def agentic_turns(problem, plan: str, program: str, environment) -> list[dict]:
    """Write solution.py and run it on examples/1.in in one command, submit, close."""
    _, expected = first_example(problem)
    command = (f"cat > {SOLUTION_FILE} << 'EOF'\n{program.rstrip()}\nEOF\n"
               f"{example_command(problem, SOLUTION_FILE)}")
    ran = environment.bash(command=command)
    _check_ran(problem, ran, "exit code 0", expected)
    submitted = environment.submit(path=SOLUTION_FILE)
    return [{"role": "assistant", "content": f"{plan} I write {SOLUTION_FILE} and run it on the "
                                             "first example.",
             "tool_calls": [_call("bash", command=command)]},
            {"role": "tool", "name": "bash", "content": ran},
            {"role": "assistant", "content": "It works on the example, so I submit it.",
             "tool_calls": [_call("submit", path=SOLUTION_FILE)]},
            {"role": "tool", "name": "submit", "content": submitted},
            {"role": "assistant", "content": f"I submitted {SOLUTION_FILE}."}]


TURNS = {"reasoning": reasoning_turns, "tool_use": tool_use_turns, "agentic": agentic_turns}


def sft_records(instance: Instance, settings: Collection[str] = ("reasoning",),
                pool=None) -> list[dict]:
    """One example per setting and reference program of the instance."""
    from transformers.utils import get_json_schema

    problem = to_problem(instance)
    variants = [("efficient", instance.efficient, EFFICIENT_PLANS)]
    if instance.slow is not None:
        variants.append(("slow", instance.slow, SLOW_PLANS))
    records = []
    for setting_name in settings:
        setting = get_setting(setting_name)
        for name, program, plans in variants:
            environment = None
            if setting_name != "reasoning":
                environment = setting.environment({problem.problem_id: problem}, pool)
                environment.reset(problem_id=problem.problem_id)
            try:
                turns = TURNS[setting_name](problem, _pick(plans, instance.seed + name),
                                            program, environment)
                tools = ([get_json_schema(t) for t in environment_tools(environment)]
                         if environment else None)
            finally:
                end_episode(environment)
            records.append({
                "problem_id": problem.problem_id, "variant": name, "setting": setting_name,
                "messages": json.dumps(setting.messages(problem) + turns, ensure_ascii=False),
                "tools": json.dumps(tools) if tools else None,
            })
    return records


def build_sft(split: str = "train", count: int | None = None,
              difficulties: Collection[str] | None = None,
              families: Collection[str] | None = None,
              knob_pool: int | None = None,
              settings: Collection[str] = ("reasoning",)) -> list[dict]:
    """One example per setting and reference (efficient, slow) for each of `count`
    instances per family (of the given difficulties and slugs). The tool-use examples
    run their programs in a judge pool of one worker; the agentic ones in terminals."""
    from contextlib import nullcontext

    from codefrontier.judge import JudgePool

    chosen = list(instances(split, count, difficulties, families, knob_pool))
    with JudgePool(workers=1) if "tool_use" in settings else nullcontext() as pool:
        return [record for instance in chosen
                for record in sft_records(instance, settings, pool)]
