"""Per-test verdicts and the outcome of a whole sample (definitions in design.md)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum


class Verdict(StrEnum):
    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    RE = "RE"  # runtime error, compile error included
    TLE = "TLE"  # CPU time over the limit, or the wall-clock backstop
    # memory over the limit: a MemoryError under the address-space cap. A SIGKILL that the
    # CPU limit does not explain (e.g. the kernel OOM killer when the machine itself runs
    # out of memory) is RE: the program stayed within its own limit (runs.runtime_verdict).
    MLE = "MLE"
    OLE = "OLE"  # output over the cap


class Outcome(StrEnum):
    CORRECT = "correct"
    OPTIMIZATION_FAILURE = "optimization_failure"
    CORRECTNESS_FAILURE = "correctness_failure"
    FORMAT_ERROR = "format_error"


OUTCOMES = tuple(outcome.value for outcome in Outcome)  # table columns keep this order

RESOURCE_VERDICTS = frozenset({Verdict.TLE, Verdict.MLE})


def first_failure(verdicts: Sequence[str]) -> int | None:
    """Index of the first non-AC verdict, or None when every test passed."""
    for index, verdict in enumerate(verdicts):
        if verdict != Verdict.AC:
            return index
    return None


def classify(verdicts: Sequence[str], *, extracted: bool = True) -> Outcome:
    """Outcome of a sample whose tests ran in ascending input length.

    `verdicts` may stop at the first failure (the default judging mode) or
    cover every test: only the first failure matters.
    """
    if not extracted:
        return Outcome.FORMAT_ERROR
    if not verdicts:
        raise ValueError("a sample with an extracted program needs at least one verdict")
    index = first_failure(verdicts)
    if index is None:
        return Outcome.CORRECT
    if verdicts[index] in RESOURCE_VERDICTS and index > 0:
        return Outcome.OPTIMIZATION_FAILURE
    return Outcome.CORRECTNESS_FAILURE
