"""What a tool call does in the multi-turn settings: the environments.

Each class follows TRL's environment protocol: `reset(problem_id=...)` starts an
episode for a problem; every other public method is a tool the
model may call, its signature and docstring becoming the tool's JSON schema in the
prompt; `episode_answer(environment, ...)` says what the judge gets when the episode
is over, and `end_episode` frees what it holds. Evaluation and GRPO rollouts play
episodes against the same classes with the same runner (settings/episodes.py,
train/multi_turn.py), so training and evaluation run one environment, and the tiny
model and Qwen2.5 one tool-call protocol.

* `PythonToolEnvironment` (tool_use): `python(code, stdin)` runs a program in the
  judge's sandbox, on an input the model chooses, and shows its exit status and
  output. The answer is the last fenced program of the final assistant turn.
* `TerminalEnvironment` (agentic): a sandboxed workspace per episode holding the
  statement and its examples; `bash(command)` runs a command there, `submit(path)`
  hands in a file. The answer is the submitted file; an episode that ends without a
  submission is a format error (`no_submission`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from codefrontier.base.options import option
from codefrontier.judge.compare import execution_kind
from codefrontier.judge.extract import extract_code
from codefrontier.problems.schema import Problem
from codefrontier.settings.examples import statement_examples

# format errors an episode itself detects (beside the judge's truncated / no_code_block)
MALFORMED_TOOL_CALL = "malformed_tool_call"
TURN_BUDGET_EXHAUSTED = "turn_budget_exhausted"
NO_SUBMISSION = "no_submission"
TRUNCATED = "truncated"


# The episode limits of the multi-turn settings, defined here only: their fields are the
# config's `episodes.<setting>` keys (config.schema.yaml states these defaults, tested) and
# the `sample` / `train grpo` options (settings/registry.py); the sandbox and the judge take
# them from the episode. `output_chars` is one option of both settings, with one default.
OUTPUT_CHARS = 600


@dataclass(frozen=True)
class ToolUseLimits:
    max_tool_calls: int = option(2, "python tool calls per episode before the model answers")
    output_chars: int = option(OUTPUT_CHARS, "characters of a tool call's stdout and of its "
                                             "stderr shown to the model (head and tail)")
    time_limit_s: float = option(2.0, "CPU seconds per python tool call")
    memory_limit_mb: int = option(512, "memory per python tool call, in MB")


@dataclass(frozen=True)
class AgenticLimits:
    max_turns: int = option(4, "actions (bash or submit) per episode")
    command_cpu_s: float = option(5.0, "CPU seconds per terminal command")
    command_wall_s: float = option(10.0, "wall-clock seconds per terminal command, less its "
                                   "waits for a busy core")
    workspace_mb: int = option(64, "size cap of the episode's sandboxed workspace, in MB")
    output_chars: int = option(OUTPUT_CHARS, "characters of a command's output shown to the "
                                             "model (head and tail)")


@dataclass(frozen=True)
class Answer:
    """What the judge gets from an episode: the final text, the program when the
    setting hands one in directly, and a format error the episode itself found."""

    completion: str
    code: str | None = None
    episode_error: str | None = None
    source: str = "final_turn"        # final_turn | submitted:<path> | none


def final_turn_answer(final_text: str, ended_by: str | None) -> Answer:
    """tool_use and reasoning: the last fenced program of the final assistant turn.
    `ended_by` is the episode's own format error (malformed call, budget), if any."""
    if ended_by is not None and extract_code(final_text) is None:
        return Answer(final_text, episode_error=ended_by, source="none")
    return Answer(final_text)


class PythonToolEnvironment:
    """tool_use: one `python` tool that runs a program in the judge's sandbox."""

    def __init__(self, pool, problems: Mapping[str, Problem], limits: ToolUseLimits) -> None:
        self._pool = pool
        self._problems = problems
        self.limits = limits
        self.problem: Problem | None = None
        self.tool_calls = 0

    def reset(self, problem_id: str, **_) -> None:
        self.problem = self._problems[problem_id]
        self.tool_calls = 0

    def python(self, code: str, stdin: str = "") -> str:
        """Run a Python program on an input, in a sandbox.

        Args:
            code: The program (class-based problems: the class Solution).
            stdin: Its input, e.g. an example's (class-based: one JSON argument per line).
        """
        self.tool_calls += 1
        if self.tool_calls > self.limits.max_tool_calls:
            return (f"tool call limit reached ({self.limits.max_tool_calls}): give your final "
                    "program in a ```python code block")
        problem = self.problem
        result = self._pool.execute(
            code, stdin, time_limit_s=self.limits.time_limit_s,
            memory_limit_mb=self.limits.memory_limit_mb, output_chars=self.limits.output_chars,
            kind=execution_kind(problem.kind if problem else "stdin"),
            func_name=problem.func_name if problem else "")
        return render_execution(result)

    def _answer(self, final_text: str, ended_by: str | None) -> Answer:
        return final_turn_answer(final_text, ended_by)


def render_execution(result) -> str:
    """A tool observation from a judge `Execution`. CPU time in tenths of a second: the
    SFT conversations hold real runs of the references on the examples, and hundredths
    (0.00 or 0.01 s from one run to the next) made the SFT data, the tokenizer trained on
    it and so every checkpoint differ between two runs of the same config."""
    lines = [f"exit status: {result.exit_code} ({result.status}, {result.cpu_s:.1f} s CPU)",
             "stdout:", result.stdout.rstrip("\n") or "(empty)"]
    if result.stderr.strip():
        lines += ["stderr:", result.stderr.rstrip("\n")]
    return "\n".join(lines)


CALL_HARNESS = '''\
"""Run a class-based solution on one example: python harness.py solution.py < examples/1.in"""
import json, sys
from typing import *
from collections import *
from heapq import *
from bisect import *
from itertools import *
from functools import *
from math import inf, gcd, lcm, sqrt, isqrt, ceil, floor, log, log2, comb, factorial

namespace = dict(globals())
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), namespace)
arguments = [json.loads(line) for line in sys.stdin if line.strip()]
print(json.dumps(getattr(namespace["Solution"](), sys.argv[2])(*arguments)))
'''


def workspace_files(problem: Problem) -> dict[str, str]:
    """The agentic workspace: the statement, its examples, and for class-based problems a
    harness that runs `Solution().<func>` on an example."""
    files = {"problem.md": problem.statement.rstrip() + "\n"}
    if problem.kind != "stdin" and problem.starter_code:
        files["starter.py"] = problem.starter_code.rstrip() + "\n"
    for number, (given, expected) in enumerate(statement_examples(problem.statement), start=1):
        files[f"examples/{number}.in"] = given
        files[f"examples/{number}.out"] = expected
    if problem.kind == "call":
        files["harness.py"] = CALL_HARNESS
    return files


def example_command(problem: Problem, solution: str = "solution.py", number: int = 1) -> str:
    """The command that runs a solution file on example `number`."""
    if problem.kind == "call":
        return f"python harness.py {solution} {problem.func_name} < examples/{number}.in"
    return f"python {solution} < examples/{number}.in"


class TerminalEnvironment:
    """agentic: a sandboxed workspace per episode, with `bash` and `submit` actions."""

    def __init__(self, problems: Mapping[str, Problem], limits: AgenticLimits) -> None:
        self._problems = problems
        self.limits = limits
        self.problem: Problem | None = None
        self.terminal = None
        self.tool_calls = 0
        self.submitted: tuple[str, str] | None = None  # (path, program)

    def reset(self, problem_id: str, **_) -> None:
        from codefrontier.sandbox.terminal import CommandLimits, Terminal

        self._close()
        self.problem = self._problems[problem_id]
        self.tool_calls = 0
        self.submitted = None
        self.terminal = Terminal(workspace_files(self.problem), CommandLimits(
            cpu_s=self.limits.command_cpu_s, wall_s=self.limits.command_wall_s,
            workspace_mb=self.limits.workspace_mb, output_chars=self.limits.output_chars))

    def _turns_left(self) -> int:
        return max(0, self.limits.max_turns - self.tool_calls)

    def _refusal(self) -> str | None:
        if self.submitted is not None:
            return f"already submitted {self.submitted[0]}: end your turn"
        if self.tool_calls > self.limits.max_turns:
            return "no turns left"
        return None

    def bash(self, command: str) -> str:
        """Run a bash command in the workspace (problem.md, examples/N.in, examples/N.out).

        Args:
            command: The command line.
        """
        self.tool_calls += 1
        refusal = self._refusal()
        if refusal:
            return refusal
        result = self.terminal.run(command)
        status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        if result.workspace_exceeded:
            status += ", workspace over its size limit: no further commands"
        output = result.output.rstrip("\n") or "(no output)"
        return f"{status}\n{output}\n[{self._turns_left()} turns left]"

    def submit(self, path: str) -> str:
        """Hand in a program file as the solution; this ends the task.

        Args:
            path: The file, e.g. solution.py.
        """
        self.tool_calls += 1
        refusal = self._refusal()
        if refusal:
            return refusal
        program = self.terminal.read(path)
        if program is None:
            return f"no such file in the workspace: {path}"
        self.submitted = (path, program)
        return f"submitted {path}"

    def _answer(self, final_text: str, ended_by: str | None) -> Answer:
        if self.submitted is not None:
            path, program = self.submitted
            return Answer(final_text, code=program, source=f"submitted:{path}")
        return Answer(final_text, episode_error=ended_by or NO_SUBMISSION, source="none")

    def _close(self) -> None:
        if self.terminal is not None:
            self.terminal.close()
            self.terminal = None

    def __del__(self) -> None:
        self._close()


# Episode-level operations. Environment methods other than `reset` stay private: TRL
# offers every public method of an environment to the model as a tool.


def episode_answer(environment, final_text: str, ended_by: str | None) -> Answer:
    """What the judge gets from the episode played in `environment`."""
    return environment._answer(final_text, ended_by)


def end_episode(environment) -> None:
    """Free what the episode holds (the agentic workspace); idempotent."""
    close = getattr(environment, "_close", None)
    if close is not None:
        close()


# how a transcript writes a parsed tool call: Qwen2.5's syntax, the call as one line of JSON
CALL_OPEN, CALL_CLOSE = "<tool_call>\n", "\n</tool_call>"


def tool_call_text(call: dict) -> str:
    """A parsed tool call as the model wrote it (Qwen2.5's syntax), for transcripts."""
    function = call.get("function", call)
    body = {"name": function.get("name"), "arguments": function.get("arguments")}
    return f"{CALL_OPEN}{json.dumps(body, ensure_ascii=False)}{CALL_CLOSE}"


def split_tool_calls(written: str, count: int) -> tuple[str, list[dict]]:
    """A transcript's assistant turn (its text, then each parsed call as tool_call_text
    wrote it) split back into its text and its last `count` calls ({"name", "arguments"}:
    the arguments as the model gave them, an object or not), in the order made. `count` is the number of tool results that follow the turn: a call
    the parser could not read got none, so it stays in the text."""
    text, calls = written, []
    while len(calls) < count and text.endswith(CALL_CLOSE):
        start = text.rfind(CALL_OPEN)  # json.dumps writes one line: no CALL_OPEN inside
        try:
            call = json.loads(text[start + len(CALL_OPEN):-len(CALL_CLOSE)]) if start >= 0 else None
        except ValueError:
            call = None
        if not (isinstance(call, dict) and "name" in call):
            break
        calls.insert(0, {"name": call["name"], "arguments": call.get("arguments")})
        text = text[:start].rstrip("\n")
    return text, calls
