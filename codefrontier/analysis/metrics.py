"""pass@k (Chen et al. 2021) for single checkpoints and for pools at equal sample budget.

pass@k of one problem with n samples of which c are correct is the chance that
k samples drawn without replacement include a correct one:
1 − C(n−c, k)/C(n, k). A pool of m checkpoints shares the budget k = q·m + r
(q = ⌊k/m⌋, r = k mod m): every member draws q of its n_j samples and r members,
chosen uniformly at random, draw one more. With miss_j(k_j) = C(n_j−c_j, k_j)/C(n_j, k_j),

    pooled pass@k = 1 − (1/C(m, r)) · Σ_{|S|=r} Π_{j∈S} miss_j(q+1) · Π_{j∉S} miss_j(q),

the expectation over which members draw the extra samples, so the value does not
depend on the order of the members; a pool of one is the single checkpoint's pass@k.
It is computed exactly by a recurrence over the members (`_mean_over_subsets`),
not by sampling.
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


def share_budget(k: int, members: int) -> tuple[int, int]:
    """(q, r) with k = q·members + r: every member draws q samples and r of them,
    chosen uniformly at random, draw one more."""
    if members < 1 or k < 0:
        raise ValueError(f"need at least one member and a non-negative budget, "
                         f"got {members} members and k={k}")
    return divmod(k, members)


def most_draws_per_member(k: int, members: int) -> int:
    """⌈k/members⌉: the samples a member must be able to supply, as it may draw an extra one."""
    base, extra = share_budget(k, members)
    return base + (extra > 0)


def pooled_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """pass@k of a pool for one problem; counts = (n_j, c_j) per member, in any order.
    The expectation over which members draw the k mod m extra samples (module docstring)."""
    base, extra = share_budget(k, len(counts))
    most = base + (extra > 0)
    short = [j for j, (n, _) in enumerate(counts) if n < most]
    if short:
        raise ValueError(f"a budget of k={k} over {len(counts)} members lets each draw up to "
                         f"{most} samples, but member(s) {short} have only "
                         f"{[counts[j][0] for j in short]}: lower k or give them more samples")
    misses = [(miss_probability(n, c, base), miss_probability(n, c, base + 1) if extra else 0.0)
              for n, c in counts]
    return 1.0 - _mean_over_subsets(misses, extra)


def _mean_over_subsets(misses: Sequence[tuple[float, float]], size: int) -> float:
    """Mean over the subsets S of `size` members of Π_{j∈S} with_j · Π_{j∉S} without_j,
    misses[j] = (without_j, with_j).

    means[i] is that mean for subsets of size i of the members seen so far. A uniform
    subset of size i of `seen` members holds the newest one with probability i/seen,
    which gives the recurrence; it keeps every term a probability (no C(m, r)-sized
    sums to overflow, no cancellation) and takes O(m·r) steps instead of C(m, r)."""
    means = [1.0] + [0.0] * size
    for seen, (without, with_extra) in enumerate(misses, start=1):
        for i in range(min(size, seen), 0, -1):
            means[i] = ((seen - i) / seen * means[i] * without
                        + i / seen * means[i - 1] * with_extra)
        means[0] *= without
    return means[size]
