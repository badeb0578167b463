"""Comparing a program's output with the expected output.

stdin problems: whitespace-separated tokens; two tokens that both parse as
floats are equal within 1e-6, absolute or relative. Two integer tokens are
compared exactly: 10**18 and 10**18 + 1 are within 1e-6 relative, yet a wrong
answer. Call-based problems: the
return value was serialized to JSON inside the sandboxed child; here it is
compared as data (lists and tuples alike, floats with the same tolerance),
never by calling anything the program defined.
"""

from __future__ import annotations

import json
import math
from typing import Any

from codefrontier.judge.child import CHECK_PASSED

FLOAT_TOLERANCE = 1e-6


def floats_close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)


def _is_integer(token: str) -> bool:
    return token.lstrip("+-").isdigit()


def _as_float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def tokens_match(actual: str, expected: str) -> bool:
    """Token-wise comparison of stdout with the expected output."""
    got, want = actual.split(), expected.split()
    if len(got) != len(want):
        return False
    for g, w in zip(got, want, strict=True):
        if g == w:
            continue
        if _is_integer(g) and _is_integer(w):
            if int(g) != int(w):
                return False
            continue
        gf, wf = _as_float(g), _as_float(w)
        if gf is None or wf is None or not floats_close(gf, wf):
            return False
    return True


def values_match(actual: Any, expected: Any) -> bool:
    """Structural equality of two JSON-decoded values with float tolerance."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, int) and isinstance(expected, int):
        return actual == expected
    if isinstance(actual, int | float) and isinstance(expected, int | float):
        return floats_close(float(actual), float(expected))
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(
            values_match(a, e) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            values_match(actual[k], expected[k]) for k in actual
        )
    return type(actual) is type(expected) and actual == expected


def json_outputs_match(actual_json: str, expected_json: str) -> bool:
    """Compare a serialized return value with the expected JSON output."""
    try:
        actual = json.loads(actual_json)
    except (json.JSONDecodeError, RecursionError):
        return False
    return values_match(actual, json.loads(expected_json))


def outputs_match(kind: str, actual: str, expected: str) -> bool:
    """The comparison for a problem kind: JSON data for "call", tokens for "stdin"; a
    "function" test passes when its check code ran to the end (the harness's report)."""
    if kind == "call":
        return json_outputs_match(actual, expected)
    if kind == "function":
        return actual == CHECK_PASSED
    return tokens_match(actual, expected)


def execution_kind(problem_kind: str) -> str:
    """How `JudgePool.execute` runs a program of a problem kind: call-based programs
    through `Solution().<func>`, the rest (a function problem's too: its check code is
    hidden test data) as scripts on stdin."""
    return "call" if problem_kind == "call" else "stdin"
