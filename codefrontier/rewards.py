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

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codefrontier.registry import Registry

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


# The rungs that reports compare: R_1 ... R_5 and R_inf (the bundled suite's tests reach
# 10^5 bytes; a cluster dataset's may go further, where R_inf is the next rung).
RUNGS = (1, 2, 3, 4, 5, math.inf)


def rung_label(k: float) -> str:
    return "R_inf" if math.isinf(k) else f"R_{k:g}"


def rung_disagreements(judged: Sequence[tuple[Sequence[str], Sequence[int]]],
                       bound: float = math.inf) -> dict[str, float]:
    """For adjacent rungs R_j, R_j+1 (of RUNGS) whose tests all lie below `bound` (the
    input length up to which the programs were judged): the share of the judged
    programs, given as (verdicts, input_lens), that one rung accepts and the other
    rejects. Keys: `R_2≠R_3`, ..."""
    known = [k for k in RUNGS if math.isinf(bound) or (not math.isinf(k) and 10.0**k <= bound)]
    if not judged:
        return {}
    shares = {}
    for low, high in itertools.pairwise(known):
        differ = sum(reward_k(v, n, low) != reward_k(v, n, high) for v, n in judged)
        shares[f"{rung_label(low)}≠{rung_label(high)}"] = differ / len(judged)
    return shares


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


RewardFunction = Callable[[Sequence[str], Sequence[int]], float]


@dataclass(frozen=True)
class RewardFamily:
    """A family of reward names (`k2`, `k3.5` and `kinf` are one: R_k) and what they mean."""

    names: str      # how its names are written, for help and errors
    pattern: str    # a regular expression its names match in full
    function: Callable[[str], RewardFunction]  # name -> reward of (verdicts, input_lens)
    # name -> (input-length bound of the tests the judge must run, all of them even past a
    # failure)
    tests: Callable[[str], tuple[float, bool]]
    nested: bool    # an R_k: a merge endpoint and a repair run may train under it


def _nested_function(name: str) -> RewardFunction:
    if name == "kinf":
        return reward_inf
    k = float(name[1:])
    return lambda verdicts, input_lens: reward_k(verdicts, input_lens, k)


def _nested_tests(name: str) -> tuple[float, bool]:
    """R_k only looks at tests shorter than 10^k bytes (plus the shortest) and stops at
    the first failure."""
    return (math.inf if name == "kinf" else 10.0 ** float(name[1:])), False


def _every_test(name: str) -> tuple[float, bool]:
    return math.inf, True


# The `{reward}` wildcard's values and the GRPO runs' rewards: the one list that the
# checkpoint names, the schema check (tests/test_registries.py), the CLI and the plots
# read. Adding a reward is its function plus one `register_reward` call.
REWARDS: Registry[RewardFamily] = Registry("reward family")


def register_reward(family: RewardFamily) -> RewardFamily:
    return REWARDS.add(family.names, family)


register_reward(RewardFamily("k<number>, kinf", r"k[0-9.]+|kinf", _nested_function,
                             _nested_tests, nested=True))
register_reward(RewardFamily("shaped-disc", "shaped-disc", lambda name: reward_discrete,
                             _every_test, nested=False))
register_reward(RewardFamily("shaped-cont", "shaped-cont", lambda name: reward_continuous,
                             _every_test, nested=False))


def reward_names() -> str:
    return ", ".join(family.names for family in REWARDS.values())


def reward_pattern(nested: bool | None = None) -> str:
    """A regular expression of the registered reward names: all of them, or only those
    that are (nested=True) or are not (False) an R_k."""
    return "|".join(family.pattern for family in REWARDS.values()
                    if nested is None or family.nested == nested)


def reward_family(name: str) -> RewardFamily:
    for family in REWARDS.values():
        if re.fullmatch(family.pattern, name):
            try:
                family.function(name)
            except ValueError:  # k1.2.3 matches the pattern but is no number
                break
            return family
    raise ValueError(f"unknown reward {name!r}: use {reward_names()}")


def parse_reward(name: str) -> RewardFunction:
    """The reward of a name (the `{reward}` wildcard's values) as a function of
    (verdicts, input_lens) -> float."""
    return reward_family(name).function(name)


def tests_needed(name: str) -> tuple[float, bool]:
    """What the judge must run for a reward: (input-length bound, all tests even after a
    failure). R_k only looks at tests shorter than 10^k bytes (plus the shortest) and
    stops at the first failure; the shaping variants count every test."""
    return reward_family(name).tests(name)
