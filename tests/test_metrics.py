"""pass@k and pooled pass@k: closed forms against brute-force enumeration, and properties."""

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codefrontier.metrics import (
    mean_pooled_pass_at_k,
    pass_at_k,
    pooled_pass_at_k,
    split_budget,
)


def brute_force_pool(members: list[list[bool]], budgets: list[int]) -> float:
    """Enumerate every way each member draws its k_j samples without replacement."""
    hits = total = 0
    choices = [itertools.combinations(range(len(s)), k) for s, k in zip(members, budgets, strict=True)]
    for draw in itertools.product(*[list(c) for c in choices]):
        total += 1
        hits += any(members[j][i] for j, picked in enumerate(draw) for i in picked)
    return hits / total


@st.composite
def pools(draw):
    members = draw(st.lists(st.lists(st.booleans(), min_size=1, max_size=6), min_size=1, max_size=3))
    k = draw(st.integers(0, sum(len(m) for m in members)))
    budgets = split_budget(k, len(members))
    if any(b > len(m) for b, m in zip(budgets, members, strict=True)):
        k = sum(min(b, len(m)) for b, m in zip(budgets, members, strict=True))
        budgets = split_budget(k, len(members))
    return members, k, budgets


@given(pools())
def test_pooled_formula_matches_enumeration(case):
    members, k, budgets = case
    if any(b > len(m) for b, m in zip(budgets, members, strict=True)):
        return  # not a valid equal split for these sizes
    counts = [(len(m), sum(m)) for m in members]
    assert pooled_pass_at_k(counts, k) == pytest.approx(brute_force_pool(members, budgets))


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
    assert split_budget(5, 3) == [2, 2, 1]
    assert mean_pooled_pass_at_k([[(4, 4)], [(4, 0)]], 1) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
