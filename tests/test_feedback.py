"""Failure contexts and the feedback a second-attempt sample gets: every verdict, hostile
output, the token cap, and no hidden-test data in any message."""

import dataclasses

import pytest
from conftest import stdin_problem

from codefrontier.evaluate.feedback import (
    FORMAT_MESSAGES,
    ExampleRun,
    FailureContext,
    failure_context,
    render_feedback,
    run_examples,
)
from codefrontier.judge.pool import JudgePool, Sample
from codefrontier.problems.schema import Test

STATEMENT = """Print the sum of the numbers on the second line.

Example 1
Input:
3
1 2 3
Expected output:
6
"""


def verdicts_row(outcome, verdicts, input_lens, cpu_s=None, cause=None):
    failing = next((i for i, v in enumerate(verdicts) if v != "AC"), None)
    passed = [n for v, n in zip(verdicts, input_lens, strict=False) if v == "AC"]
    return {"outcome": outcome, "verdicts": verdicts, "input_lens": input_lens,
            "cpu_s": cpu_s or [0.01] * len(verdicts), "peak_mb": [12.0] * len(verdicts),
            "first_failure": failing, "max_passed_input_len": max(passed) if passed else None,
            "format_error_cause": cause, "error": "Traceback: hidden-test secret"}


PROBLEM = dataclasses.replace(stdin_problem("sum-line"), statement=STATEMENT, time_limit_s=0.5)
WRONG_ON_EXAMPLE = ExampleRun("3\n1 2 3\n", "6\n", "5", "", "ok", passed=False)


@pytest.mark.parametrize(("verdict", "outcome", "phrase"), [
    ("WA", "correctness_failure", "gave a wrong answer"),
    ("RE", "correctness_failure", "raised an error"),
    ("TLE", "optimization_failure", "exceeded the time limit"),
    ("MLE", "optimization_failure", "exceeded the memory limit"),
    ("OLE", "correctness_failure", "printed more output than allowed"),
])
def test_every_verdict_is_named_with_the_decade_and_its_limits(verdict, outcome, phrase):
    row = verdicts_row(outcome, ["AC", "AC", verdict], [5, 40, 5000], cpu_s=[0.01, 0.02, 0.61])
    text = render_feedback(failure_context(PROBLEM, row, [WRONG_ON_EXAMPLE]))
    assert phrase in text
    assert "10^3 to 10^4 bytes of input" in text and "up to 40 bytes" in text
    if verdict == "TLE":
        assert "more than its 0.5 s of CPU time" in text and "0.61" not in text
    if verdict == "MLE":
        assert "more than its 256 MB of memory" in text
    assert "Expected output:\n6" in text and "Your output:\n5" in text
    assert "secret" not in text  # the judge's error text comes from a hidden test


def test_a_failure_on_the_first_test_has_no_passed_part():
    row = verdicts_row("correctness_failure", ["RE"], [5])
    text = render_feedback(failure_context(PROBLEM, row))
    assert "raised an error on a test with 10^0 to 10^1 bytes" in text and "passing" not in text


def test_examples_that_pass_are_said_to_pass():
    passing = dataclasses.replace(WRONG_ON_EXAMPLE, actual="6", passed=True)
    row = verdicts_row("optimization_failure", ["AC", "TLE"], [5, 50_000], cpu_s=[0.01, 0.55])
    text = render_feedback(failure_context(PROBLEM, row, [passing]))
    assert "expected output on every example" in text and "Your output" not in text


@pytest.mark.parametrize("cause", sorted(FORMAT_MESSAGES))
def test_format_errors_say_what_was_wrong(cause):
    row = verdicts_row("format_error", [], [], cause=cause)
    assert render_feedback(failure_context(PROBLEM, row)).startswith(FORMAT_MESSAGES[cause])


def test_hostile_output_is_cleaned_and_the_cap_holds():
    hostile = ExampleRun("3\n1 2 3\n", "6\n", "\x00\x1b[2J" + "A" * 1_000_000 + "\x00end",
                         "\x00" * 50_000 + "Traceback", "error", passed=False)
    context = FailureContext("correctness_failure", verdict="RE", failed_decade=0,
                             time_limit_s=1.0, memory_limit_mb=256, examples=(hostile,) * 3)
    for cap in (40, 120, 300, 1000):
        text = render_feedback(context, max_tokens=cap)
        assert len(text.encode()) <= 3 * cap
        assert "\x00" not in text and "\x1b" not in text
    roomy = render_feedback(context, max_tokens=1000)
    assert "characters cut" in roomy and "end" in roomy  # head and tail of the output


def test_the_cap_counts_with_the_given_tokenizer():
    context = FailureContext("correctness_failure", verdict="WA", failed_decade=1,
                             examples=(WRONG_ON_EXAMPLE,) * 2)
    words = render_feedback(context, max_tokens=25, count_tokens=lambda t: len(t.split()))
    assert len(words.split()) <= 25


def test_hidden_test_data_never_reaches_the_feedback():
    """A program judged for real that fails a hidden test with the test's input in its
    error, and prints a wrong answer on the statement's example: only the example
    shows up."""
    secret_in, secret_out = "1\n73519\n", "73519"
    large = "2\n" + "99991 " * 2000 + "\n"
    problem = dataclasses.replace(
        PROBLEM, tests=(Test(secret_in, secret_out), Test("3\n1 2 3\n", "6"),
                        Test(large, "199982")))
    program = ("import sys\ndata = sys.stdin.read()\n"
               "if '73519' in data or len(data) > 100:\n"
               "    raise ValueError('bad input: ' + data)\n"
               "print(sum(map(int, data.split()[1:])) + 1)\n")
    with JudgePool(workers=1) as pool:
        result = pool.judge_one(problem, Sample(problem.problem_id, 0, code=program))
        examples = run_examples(pool, problem, program)
    assert result.outcome == "correctness_failure" and "73519" in result.error
    assert examples[0].input == "3\n1 2 3\n" and examples[0].actual.strip() == "7"
    text = render_feedback(failure_context(problem, dataclasses.asdict(result), examples),
                           max_tokens=2000)
    assert "raised an error" in text and "Your output:\n7" in text  # the example is shown
    for secret in ("73519", "99991", "199982"):
        assert secret not in text


def test_class_based_examples_compare_the_returned_value():
    from conftest import call_problem

    problem = dataclasses.replace(call_problem(), statement=(
        "Return a + b.\n\nExample 1\nArguments (one JSON value per line):\n1\n2\nReturns: 3\n"))
    right = "class Solution:\n    def add(self, a, b):\n        print('working')\n        return a + b\n"
    wrong = "class Solution:\n    def add(self, a, b):\n        return a - b\n"
    with JudgePool(workers=1) as pool:
        assert run_examples(pool, problem, right)[0].passed
        (run,) = run_examples(pool, problem, wrong)
    assert not run.passed and run.actual == "-1" and run.expected == "3\n"


def test_an_idle_program_is_told_it_sat_idle_not_its_cpu_time():
    row = {**verdicts_row("optimization_failure", ["AC", "TLE"], [5, 5000], cpu_s=[0.01, 0.02]),
           "tle_cause": "wall"}
    text = render_feedback(failure_context(PROBLEM, row))
    assert "sat idle" in text and "CPU time" not in text
