"""Rewards computed from per-test verdicts and input lengths (see design.md).

R_k(y) = 1 iff the program passes every test whose input length is < 10^k
bytes, and always at least the shortest test; R_inf passes every test. The two
shaping variants are for the reward-shaping ablation:

* discrete: the fraction of input-length decades (floor(log10(len))) whose
  tests all pass;
* continuous: the fraction of tests passed.

Verdicts may stop at the first failure: tests that were never run count as
failed, which is what they would have been worth to the reward. The shaping variants
have the judge go on past wrong answers and errors, but a run out of time or memory
ends it there too: the longer tests, which would cost the limit again, count as failed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

AC = "AC"


def _check(verdicts: Sequence[str], input_lens: Sequence[int]) -> None:
    if len(verdicts) > len(input_lens):
        raise ValueError(f"{len(verdicts)} verdicts for {len(input_lens)} tests")
    if list(input_lens) != sorted(input_lens):
        raise ValueError("input_lens must be in ascending order, the order the judge runs tests in")


def _passed(verdicts: Sequence[str], index: int) -> bool:
    return index < len(verdicts) and verdicts[index] == AC


def reward_k(verdicts: Sequence[str], input_lens: Sequence[int], k: float) -> float:
    """R_k: 1.0 when every test with input length < 10^k passes (the shortest always counts).

    `input_lens` lists every test of the problem in the order judged (ascending);
    `verdicts` is a prefix of the same order. k = math.inf gives R_inf.
    """
    _check(verdicts, input_lens)
    if not input_lens:
        return 0.0
    bound = math.inf if math.isinf(k) else 10.0**k
    covered = [i for i, length in enumerate(input_lens) if length < bound] or [0]
    return float(all(_passed(verdicts, i) for i in covered))


def reward_inf(verdicts: Sequence[str], input_lens: Sequence[int]) -> float:
    return reward_k(verdicts, input_lens, math.inf)


def decade(input_len: int) -> int:
    """The input-length decade of a test: 0 for lengths 0-9, 1 for 10-99, ..."""
    return len(str(max(input_len, 1))) - 1


def reward_discrete(verdicts: Sequence[str], input_lens: Sequence[int]) -> float:
    """Fraction of input-length decades whose tests all pass."""
    _check(verdicts, input_lens)
    decades: dict[int, bool] = {}
    for index, length in enumerate(input_lens):
        d = decade(length)
        decades[d] = decades.get(d, True) and _passed(verdicts, index)
    return sum(decades.values()) / len(decades) if decades else 0.0


def reward_continuous(verdicts: Sequence[str], input_lens: Sequence[int]) -> float:
    """Fraction of tests passed."""
    _check(verdicts, input_lens)
    if not input_lens:
        return 0.0
    return sum(_passed(verdicts, i) for i in range(len(input_lens))) / len(input_lens)


def parse_reward(name: str):
    """Map a reward name (k2, k4, kinf, shaped-disc, shaped-cont) to a function of
    (verdicts, input_lens) -> float. The names are the `{reward}` wildcard values."""
    if name == "kinf":
        return reward_inf
    if name == "shaped-disc":
        return reward_discrete
    if name == "shaped-cont":
        return reward_continuous
    if name.startswith("k"):
        try:
            k = float(name[1:])
        except ValueError:
            pass
        else:
            return lambda verdicts, input_lens: reward_k(verdicts, input_lens, k)
    raise ValueError(f"unknown reward {name!r}: use k<number>, kinf, shaped-disc or shaped-cont")


def tests_needed(name: str) -> tuple[float, bool]:
    """What the judge must run for a reward: (input-length bound, all tests even after a failure).

    R_k only looks at tests shorter than 10^k bytes (plus the shortest) and stops
    at the first failure; the shaping variants count every test.
    """
    parse_reward(name)  # validates the name
    if name in ("shaped-disc", "shaped-cont"):
        return math.inf, True
    if name == "kinf":
        return math.inf, False
    return 10.0 ** float(name[1:]), False
