"""Why a program failed, and the message a second-attempt sample is given.

A `FailureContext` is built from what judging already recorded about a sample (its
verdicts row) plus runs of the program on the statement's own examples:

- from the hidden tests only the first failing test's verdict, the decade of its input
  length, the problem's time or memory limit it went past (not the figure measured,
  which varies from run to run), and which decades passed; never their inputs, outputs or the program's error text on them, so a
  policy cannot copy answers;
- from the examples (public: they are in the statement) the input, the expected output,
  the program's output and its error, cut to head and tail.

`render_feedback` is the one function that turns a context into text, under a token
cap. Its wording follows LiveCodeBench's self-repair scenario (wrong answer with input,
output and expected output; time limit exceeded; runtime error with the error), and
like RLEF it shows public tests only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codefrontier.judge.compare import execution_kind, outputs_match
from codefrontier.judge.verdicts import Outcome, Verdict
from codefrontier.problems.schema import Problem
from codefrontier.rewards import decade
from codefrontier.sandbox.textcut import head_tail, strip_controls
from codefrontier.settings.examples import statement_examples

EXAMPLE_OUTPUT_CHARS = 400      # of each example's actual output and error, at most
FORMAT_MESSAGES = {
    "truncated": "Your answer was cut off before it ended (the token budget ran out).",
    "no_code_block": "Your answer had no ```python code block.",
    "malformed_tool_call": "A tool call of yours could not be parsed.",
    "turn_budget_exhausted": "You ran out of turns before giving a final program.",
    "no_submission": "You did not submit a solution file.",
}
VERDICT_MESSAGES = {
    Verdict.WA: "gave a wrong answer",
    Verdict.RE: "raised an error",
    Verdict.TLE: "exceeded the time limit",
    Verdict.MLE: "exceeded the memory limit",
    Verdict.OLE: "printed more output than allowed",
}

# the feedback message's cap (model tokens), at evaluation and in repair training
MAX_FEEDBACK_TOKENS = 300


@dataclass(frozen=True)
class ExampleRun:
    """One run of the program on one of the statement's examples."""

    input: str
    expected: str
    actual: str          # stdout, cut to head and tail
    error: str           # stderr, cut to head and tail
    status: str          # the sandbox's: ok, error, timeout, memory, output_limit, ...
    passed: bool


@dataclass(frozen=True)
class FailureContext:
    outcome: str                          # an Outcome value
    verdict: str | None = None            # the first failing hidden test's
    failed_decade: int | None = None      # 10^d <= its input bytes < 10^(d+1)
    passed_below: int | None = None       # the largest input length that passed, bytes
    time_limit_s: float | None = None
    memory_limit_mb: int | None = None
    tle_cause: str | None = None          # TLE: "cpu" (over the limit) or "wall" (idle)
    format_error_cause: str | None = None
    examples: tuple[ExampleRun, ...] = ()


def run_examples(pool, problem: Problem, code: str,
                 output_chars: int = EXAMPLE_OUTPUT_CHARS) -> tuple[ExampleRun, ...]:
    """The program on each example of the statement, in the judge's sandbox under the
    problem's limits."""
    runs = []
    for stdin, expected in statement_examples(problem.statement):
        result = pool.execute(code, stdin, time_limit_s=problem.time_limit_s,
                              memory_limit_mb=problem.memory_limit_mb,
                              output_chars=output_chars, kind=execution_kind(problem.kind),
                              func_name=problem.func_name)
        actual = _returned_value(result.stdout) if problem.kind == "call" else result.stdout
        passed = result.status == "ok" and outputs_match(execution_kind(problem.kind), actual,
                                                         expected)
        runs.append(ExampleRun(stdin, expected, actual, result.stderr, result.status, passed))
    return tuple(runs)


def _returned_value(stdout: str) -> str:
    """A class-based run ends its stdout with the return value's JSON line."""
    lines = stdout.rstrip("\n").split("\n")
    return lines[-1] if lines else ""


def failure_context(problem: Problem, verdicts: dict,
                    examples: Sequence[ExampleRun] = ()) -> FailureContext:
    """The context of one judged sample (a row of verdicts.parquet)."""
    outcome = verdicts["outcome"]
    if outcome == Outcome.FORMAT_ERROR:
        return FailureContext(outcome, format_error_cause=verdicts.get("format_error_cause"))
    index = verdicts.get("first_failure")
    fields = {}
    if index is not None:
        fields = {"verdict": verdicts["verdicts"][index],
                  "failed_decade": decade(verdicts["input_lens"][index]),
                  "tle_cause": verdicts.get("tle_cause")}
    return FailureContext(outcome, passed_below=verdicts.get("max_passed_input_len"),
                          time_limit_s=problem.time_limit_s,
                          memory_limit_mb=problem.memory_limit_mb,
                          examples=tuple(examples), **fields)


def approx_tokens(text: str) -> int:
    """A tokenizer-free count for the cap: 3 bytes per token (code tokenizes denser than
    prose; a cap meant for a real tokenizer should pass its count instead)."""
    return math.ceil(len(text.encode("utf-8")) / 3)


def render_feedback(context: FailureContext, max_tokens: int = MAX_FEEDBACK_TOKENS,
                    count_tokens: Callable[[str], int] = approx_tokens) -> str:
    """The feedback message for a second-attempt sample: at most `max_tokens` by `count_tokens`.
    Examples' outputs shrink first, then later examples go, then the text is cut."""
    for chars in (EXAMPLE_OUTPUT_CHARS, 200, 80, 20):
        for shown in range(len(context.examples), -1, -1):
            text = _render(context, chars, shown)
            if count_tokens(text) <= max_tokens:
                return text
    text = _render(context, 0, 0)
    while count_tokens(text) > max_tokens and text:
        text = head_tail(text, len(text) * 3 // 4)[0]
    return text


def _render(context: FailureContext, chars: int, examples_shown: int) -> str:
    if context.outcome == Outcome.FORMAT_ERROR:
        message = FORMAT_MESSAGES.get(context.format_error_cause or "",
                                      "Your answer could not be judged.")
        return f"{message} Give your final program in one ```python code block."
    if context.outcome == Outcome.CORRECT:
        return "Your program passed every test."
    lines = [_hidden_tests_line(context)]
    failing = [run for run in context.examples if not run.passed]
    for number, run in enumerate(failing[:examples_shown], start=1):
        lines += ["", f"Example {number}: {_example_status(run)}",
                  "Input:", _cut(run.input, chars), "Expected output:", _cut(run.expected, chars),
                  "Your output:", _cut(run.actual, chars) or "(empty)"]
        if run.error.strip():
            lines += ["Error:", _cut(run.error, chars)]
    if context.examples and not failing:
        lines += ["", "It gives the expected output on every example of the statement."]
    lines += ["", "Fix the program and give the whole corrected program in one ```python "
                  "code block."]
    return "\n".join(lines)


def _hidden_tests_line(context: FailureContext) -> str:
    verdict = VERDICT_MESSAGES.get(context.verdict, "failed")
    where = "" if context.failed_decade is None else \
        f" on a test with 10^{context.failed_decade} to 10^{context.failed_decade + 1} bytes of input"
    line = f"Your program {verdict}{where}"
    if context.passed_below:
        line += f", after passing every test up to {context.passed_below} bytes"
    line += "."
    # Past a limit the measured figure says nothing more than the limit does, and it
    # varies from run to run: the message names the limit (so that the same failure
    # always reads the same, e.g. in the SFT data).
    if context.verdict == Verdict.TLE and context.tle_cause == "wall":
        line += " It sat idle, asleep or blocked, until it was stopped."
    elif context.verdict == Verdict.TLE:
        line += (f" It used more than its {context.time_limit_s:g} s of CPU time: it needs a"
                 " more efficient algorithm.")
    if context.verdict == Verdict.MLE:
        line += f" It needed more than its {context.memory_limit_mb} MB of memory."
    return line


def _example_status(run: ExampleRun) -> str:
    return {"ok": "wrong answer", "timeout": "time limit exceeded",
            "memory": "memory limit exceeded", "output_limit": "too much output"}.get(
        run.status, "runtime error")


def _cut(text: str, chars: int) -> str:
    return head_tail(strip_controls(text).rstrip("\n"), chars)[0]


def judged_feedback(pool, problem: Problem, program: str, verdicts: dict,
                    max_tokens: int = MAX_FEEDBACK_TOKENS,
                    count_tokens: Callable[[str], int] = approx_tokens) -> str:
    """The feedback on a judged program (`verdicts`: a row of verdicts.parquet, or a judge
    SampleResult as a dict): its judgement's statistics and its runs on the statement's
    examples in `pool`, rendered under the token cap. Second attempts at evaluation,
    repair training and the SFT repair conversations all render it so."""
    return render_feedback(failure_context(problem, verdicts, run_examples(pool, problem, program)),
                           max_tokens, count_tokens)
