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
and every point of the curve (all are evaluated on one problem set). Over several
training seeds the counts come per (cluster, seed) cell and the seeds are resampled too
(crossed_resamples). docs/results.md ("Frontier distance") states the same.
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


def crossed_resamples(cell_clusters: list, cell_seeds: list, reps: int,
                      seed: int) -> np.ndarray:
    """[reps, cells]: the weight of each (cluster, seed) cell in each resample of a crossed
    design, drawing the clusters and the training seeds each with replacement (the
    two-way, "pigeonhole" bootstrap: a cell counts as often as its cluster times its
    seed was drawn). It is conservative for a grand mean (McCullagh 2000, "Resampling
    and exchangeable arrays": it counts the residual more than once); no bootstrap of a
    crossed design is exact. With one seed it is the cluster bootstrap
    (cluster_resamples, the same draws)."""
    clusters, seeds = sorted(set(cell_clusters)), sorted(set(cell_seeds))
    by_cluster = cluster_resamples(len(clusters), reps, seed)
    weights = by_cluster[:, [clusters.index(c) for c in cell_clusters]]
    if len(seeds) > 1:
        by_seed = np.random.default_rng([seed, len(seeds)]).multinomial(
            len(seeds), [1 / len(seeds)] * len(seeds), size=reps)
        weights = weights * by_seed[:, [seeds.index(s) for s in cell_seeds]]
    return weights


def bootstrap_distances(counts: np.ndarray, on_curve: list[int], reps: int = BOOTSTRAP_REPS,
                        seed: int = 0, weights: np.ndarray | None = None) -> np.ndarray:
    """d per resample of the clusters and checkpoint [reps, checkpoints], from per-cluster
    counts [checkpoints, clusters, 3] (or per-cell counts with the cells' `weights`
    [reps, cells] of crossed_resamples); every checkpoint and the curve (`on_curve`,
    indices in α order) are measured on the same resample."""
    if weights is None:
        weights = cluster_resamples(counts.shape[1], reps, seed)
    resampled = rates(counts, weights)
    reps = weights.shape[0]
    curves = resampled[:, on_curve][:, None]                  # [reps, 1, k, 2]
    return frontier_distance(resampled, np.broadcast_to(
        curves, (reps, counts.shape[0], len(on_curve), 2)))


def distances_with_interval(counts: np.ndarray, on_curve: list[int], reps: int = BOOTSTRAP_REPS,
                            seed: int = 0, level: float = 0.95,
                            weights: np.ndarray | None = None) -> np.ndarray:
    """(d, low, high) per checkpoint [checkpoints, 3] from per-cluster counts
    [checkpoints, clusters, 3] (or per-cell counts and their resamples' `weights`:
    bootstrap_distances); `on_curve` lists the indices of the curve's checkpoints in α
    order. NaN where there is no curve (fewer than 2 points)."""
    if len(on_curve) < 2:
        return np.full((counts.shape[0], 3), np.nan)
    point = rates(counts)[0]
    estimate = frontier_distance(point, point[on_curve])
    distances = bootstrap_distances(counts, on_curve, reps, seed, weights)
    tail = (1 - level) / 2
    low, high = np.nanquantile(distances, [tail, 1 - tail], axis=0)
    return np.stack([estimate, low, high], axis=-1)


CURVES = {"frontier_distance": lambda alpha: True,                  # the whole α curve
          "interpolation_distance": lambda alpha: 0 <= alpha <= 1}  # its interpolation part


def curve_distances(alphas: list[float | None], counts: np.ndarray,
                    weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each checkpoint's distance with its interval [checkpoints, 3] from each curve of
    CURVES, the checkpoints' α on the curve given (None: not on it) with their counts
    [checkpoints, cells, 3] (and the cells' resample `weights`: bootstrap_distances)."""
    by_alpha = sorted((i for i, alpha in enumerate(alphas) if alpha is not None),
                      key=lambda i: alphas[i])
    return {column: distances_with_interval(
                counts, [i for i in by_alpha if part(alphas[i])], weights=weights)
            for column, part in CURVES.items()}


def distance_columns(found: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """curve_distances as table columns: `<curve>`, `<curve>_lo`, `<curve>_hi`, one value
    per checkpoint, None where there is no curve."""
    return {f"{column}{end}": [None if math.isnan(v) else float(v) for v in values[:, index]]
            for column, values in found.items()
            for end, index in (("", 0), ("_lo", 1), ("_hi", 2))}
