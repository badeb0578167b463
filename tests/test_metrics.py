"""pass@k and pooled pass@k: closed forms against brute-force enumeration, and properties."""

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codefrontier.analysis.metrics import (
    pass_at_k,
    pooled_pass_at_k,
)


def brute_force_draws(members: list[list[bool]], budgets: list[int]) -> Fraction:
    """Enumerate every way each member draws its k_j samples without replacement."""
    hits = total = 0
    choices = [itertools.combinations(range(len(s)), k) for s, k in zip(members, budgets, strict=True)]
    for draw in itertools.product(*[list(c) for c in choices]):
        total += 1
        hits += any(members[j][i] for j, picked in enumerate(draw) for i in picked)
    return Fraction(hits, total)


def extra_draw_assignments(k: int, m: int) -> list[list[int]]:
    """Every way to give the k mod m extra draws to distinct members: the budgets k_j."""
    base, extra = divmod(k, m)
    return [[base + (j in chosen) for j in range(m)]
            for chosen in itertools.combinations(range(m), extra)]


def brute_force_pool(members: list[list[bool]], k: int) -> Fraction:
    """pass@k of the pool: every draw of every member, under every equally likely
    choice of the members that draw the extra samples."""
    assignments = extra_draw_assignments(k, len(members))
    return sum(brute_force_draws(members, b) for b in assignments) / len(assignments)


@st.composite
def pools(draw, max_members=3, max_samples=5):
    """Members as lists of sample outcomes, and a budget each member can serve."""
    members = draw(st.lists(st.lists(st.booleans(), min_size=1, max_size=max_samples),
                            min_size=1, max_size=max_members))
    m, smallest = len(members), min(len(s) for s in members)
    # a member may draw ⌈k/m⌉ samples, so k ≤ m · smallest
    k = draw(st.integers(0, m * smallest))
    return members, k


@given(pools())
def test_pooled_pass_at_k_equals_enumerating_every_draw_and_extra_assignment(case):
    members, k = case
    counts = [(len(s), sum(s)) for s in members]
    assert pooled_pass_at_k(counts, k) == pytest.approx(float(brute_force_pool(members, k)))


@given(st.lists(st.integers(1, 30).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
                min_size=1, max_size=7), st.data())
def test_pooled_pass_at_k_equals_the_mean_over_every_extra_assignment(counts, data):
    m = len(counts)
    k = data.draw(st.integers(0, m * min(n for n, _ in counts)))
    assignments = extra_draw_assignments(k, m)
    expected = sum(1 - math.prod(1 - pass_at_k(n, c, k_j) for (n, c), k_j in
                                 zip(counts, budget, strict=True))
                   for budget in assignments) / len(assignments)
    assert pooled_pass_at_k(counts, k) == pytest.approx(expected, abs=1e-12)


@given(pools(max_members=6, max_samples=12), st.data())
def test_pooled_pass_at_k_does_not_depend_on_member_order(case, data):
    members, k = case
    counts = [(len(s), sum(s)) for s in members]
    shuffled = data.draw(st.permutations(counts))
    assert pooled_pass_at_k(shuffled, k) == pytest.approx(pooled_pass_at_k(counts, k), abs=1e-12)


def test_the_three_member_pool_has_one_value_in_every_order():
    # the extra draw goes to each member with chance 1/3: misses 63/224, 45/224 and 18/224
    counts = [(8, 0), (8, 2), (8, 5)]
    values = {round(pooled_pass_at_k(list(order), 4), 12)
              for order in itertools.permutations(counts)}
    assert values == {round(13 / 16, 12)}


def test_a_member_that_cannot_supply_an_extra_draw_is_refused():
    # k=3 over two members: either may draw 2 samples, but the second has only 1
    with pytest.raises(ValueError, match=r"up to 2 samples.*\[1\]"):
        pooled_pass_at_k([(3, 1), (1, 0)], 3)


@given(st.integers(1, 30), st.data())
def test_a_pool_of_one_is_the_single_checkpoint(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(0, n))
    assert pooled_pass_at_k([(n, c)], k) == pytest.approx(pass_at_k(n, c, k))


@given(st.integers(1, 40), st.data())
def test_pass_at_k_grows_with_k(n, data):
    c = data.draw(st.integers(0, n))
    values = [pass_at_k(n, c, k) for k in range(n + 1)]
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(values))


def test_closed_form_values():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(5, 0, 5) == 0.0 and pass_at_k(5, 1, 5) == 1.0
    assert pass_at_k(200, 7, 10) == pytest.approx(1 - math.comb(193, 10) / math.comb(200, 10))
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
