"""pass@k (Chen et al. 2021) for single checkpoints and for pools at equal sample budget.

pass@k of one problem with n samples of which c are correct is the chance that
k samples drawn without replacement include a correct one:
1 − C(n−c, k)/C(n, k). A pool of m checkpoints shares the budget k, checkpoint
j drawing k_j of its n_j samples (Σ k_j = k): 1 − Π_j C(n_j−c_j, k_j)/C(n_j, k_j).
The budget is split as evenly as possible, the first members taking the
remainder (`split_budget`).
"""

from __future__ import annotations

from collections.abc import Sequence


def miss_probability(n: int, c: int, k: int) -> float:
    """C(n−c, k)/C(n, k): k draws from n samples with c correct miss every correct one.
    Computed as a product, stable for large n (Chen et al.)."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 0 <= k <= n:
        raise ValueError(f"a budget of k={k} needs at least k samples, got n={n}")
    if k == 0:
        return 1.0
    if n - c < k:
        return 0.0
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return miss


def pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 - miss_probability(n, c, k)


def split_budget(k: int, members: int) -> list[int]:
    """k samples over `members` checkpoints, as evenly as possible."""
    if members < 1 or k < 0:
        raise ValueError("need at least one member and a non-negative budget")
    base, extra = divmod(k, members)
    return [base + (j < extra) for j in range(members)]


def pooled_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """pass@k of a pool for one problem; counts = (n_j, c_j) per member."""
    miss = 1.0
    for (n, c), k_j in zip(counts, split_budget(k, len(counts)), strict=True):
        miss *= miss_probability(n, c, k_j)
    return 1.0 - miss


def mean_pooled_pass_at_k(per_problem: Sequence[Sequence[tuple[int, int]]], k: int) -> float:
    """Averaged over problems; per_problem[i] = the members' (n, c) on problem i."""
    if not per_problem:
        return float("nan")
    return sum(pooled_pass_at_k(counts, k) for counts in per_problem) / len(per_problem)
