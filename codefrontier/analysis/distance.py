"""How far a checkpoint lies beyond the α curve of its model and setting.

A checkpoint is a point q = (c, o): its correctness-failure and optimization-failure
rates. The α curve is the piecewise-linear path through the points of the RL endpoints
(α = 0, 1) and the merges, in α order. The frontier distance of q is

    d(q) = √2 · min over p on the curve of max(p_c − q_c, p_o − q_o)

the distance, along the diagonal of fewer failures of both kinds, from q to the
boundary of the region the curve reaches (every point at least as bad as some point of
the curve in both rates). d > 0: no point of the curve is as good as q in both rates,
and both of q's rates would have to rise by d/√2 before one is; d < 0: some point of the
curve is better than q in both rates, by |d|/√2 each; d = 0 for a point on the curve
that no other point of it dominates. In rate units (0.05 = 5 points along the diagonal).

The interval is a percentile bootstrap over clusters, the unit the problems were drawn
in (problems.schema.cluster_of: a bundled problem's family, any other problem itself):
the counts come summed per cluster, and the same resampled clusters serve the checkpoint
and every point of the curve (all are evaluated on one problem set). docs/results.md
("Frontier distance") states the same.
"""

from __future__ import annotations

import math

import numpy as np

BOOTSTRAP_REPS = 1000


def frontier_distance(points: np.ndarray, curve: np.ndarray) -> np.ndarray:
    """d(q) for points [..., 2] against curves [..., k, 2] (k ≥ 1 points in α order,
    leading axes broadcast): √2 · min over the curve's segments of min over t in [0, 1]
    of max(a(t), b(t)), where a and b are the segment's rate differences to q, linear in
    t, so the minimum lies at t = 0, t = 1 or where a = b."""
    differences = curve - points[..., None, :]            # [..., k, 2]: p − q
    if differences.shape[-2] == 1:
        return math.sqrt(2) * differences[..., 0, :].max(-1)
    start, end = differences[..., :-1, :], differences[..., 1:, :]
    best = np.minimum(start.max(-1), end.max(-1))          # t = 0 or 1, per segment
    slope = (end[..., 0] - start[..., 0]) - (end[..., 1] - start[..., 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = (start[..., 1] - start[..., 0]) / slope  # where a(t) = b(t)
    inside = np.isfinite(crossing) & (crossing > 0) & (crossing < 1)
    at_crossing = start[..., 0] + np.where(inside, crossing, 0) * (end[..., 0] - start[..., 0])
    best = np.where(inside, np.minimum(best, at_crossing), best)
    return math.sqrt(2) * best.min(-1)


def rates(counts: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Pooled (correctness-failure, optimization-failure) rates from per-cluster counts
    [checkpoints, clusters, 3] (samples, correctness failures, optimization failures),
    with per-cluster weights [reps, clusters] (bootstrap draws) or all weights 1."""
    if weights is None:
        weights = np.ones((1, counts.shape[1]))
    totals = np.einsum("rp,cpk->rck", weights, counts)      # [reps, checkpoints, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        return totals[..., 1:] / totals[..., :1]


def cluster_resamples(clusters: int, reps: int, seed: int) -> np.ndarray:
    """[reps, clusters]: how often each cluster is drawn in each resample, a resample
    drawing `clusters` clusters with replacement."""
    return np.random.default_rng(seed).multinomial(clusters, [1 / clusters] * clusters,
                                                   size=reps)


def bootstrap_distances(counts: np.ndarray, on_curve: list[int], reps: int = BOOTSTRAP_REPS,
                        seed: int = 0) -> np.ndarray:
    """d per resample of the clusters and checkpoint [reps, checkpoints], from per-cluster
    counts [checkpoints, clusters, 3]; every checkpoint and the curve (`on_curve`, indices
    in α order) are measured on the same resample."""
    resampled = rates(counts, cluster_resamples(counts.shape[1], reps, seed))
    curves = resampled[:, on_curve][:, None]                  # [reps, 1, k, 2]
    return frontier_distance(resampled, np.broadcast_to(
        curves, (reps, counts.shape[0], len(on_curve), 2)))


def distances_with_interval(counts: np.ndarray, on_curve: list[int], reps: int = BOOTSTRAP_REPS,
                            seed: int = 0, level: float = 0.95) -> np.ndarray:
    """(d, low, high) per checkpoint [checkpoints, 3] from per-cluster counts
    [checkpoints, clusters, 3]; `on_curve` lists the indices of the curve's checkpoints in
    α order. NaN where there is no curve (fewer than 2 points)."""
    if len(on_curve) < 2:
        return np.full((counts.shape[0], 3), np.nan)
    point = rates(counts)[0]
    estimate = frontier_distance(point, point[on_curve])
    distances = bootstrap_distances(counts, on_curve, reps, seed)
    tail = (1 - level) / 2
    low, high = np.nanquantile(distances, [tail, 1 - tail], axis=0)
    return np.stack([estimate, low, high], axis=-1)
