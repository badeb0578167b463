"""Verdicts a statistician would sign: estimates, intervals, decisions and power for
comparisons of checkpoints evaluated on the same problems.

The unit. Problems are drawn by family (G families × I instances per family × n samples
per instance); the population is families, so families are the clusters. For a real
dataset the cluster is the problem, unless the data names a group. RL training may be
repeated over seeds S (each seed retrains every run).

The values. A comparison's estimate is the mean, over clusters and seeds, of one value
per cell (cluster g, seed s): a checkpoint's rate in that family and seed, or the paired
difference b − a of two checkpoints' rates in that family and seed. Pairing removes what
the two share (a family's difficulty), which the old rule (standard errors combined as
independent) counted twice.

The model. y_gs = μ + u_g + v_s + e_gs, with family u and seed v crossed random effects
and e the residual (family × seed interaction and sampling noise). μ is estimated by the
grand mean; its variance by the ANOVA (method-of-moments) estimator of a two-way table
without replication, components truncated at 0:

    σ_e² = MS_e,  σ_u² = max(0, (MS_g − MS_e)/S),  σ_v² = max(0, (MS_s − MS_e)/G),
    Var(ȳ) = σ_u²/G + σ_v²/S + σ_e²/(G·S),

with degrees of freedom by Satterthwaite for the linear combination of mean squares
that this variance is. Intervals are t intervals with those degrees of freedom. With one
seed it is exactly the one-sample t over the cluster values: Var = s²/G with G − 1 df,
which is also what CR2 (Bell–McCaffrey) gives for an equally weighted mean of cluster
means.

The rules, fixed before any result was looked at. Every comparison has one of three
outcomes:

- DIFFERS when the 95% interval (LEVEL) excludes 0;
- EQUAL when the 90% interval (EQUIVALENCE_LEVEL) lies within ±MARGIN (5 points): two
  one-sided tests at 5%;
- UNDECIDED otherwise.

A tiny but nonzero effect can satisfy both: it is reported as DIFFERS (the interval says
it is not zero), and the decision notes that it is also equal within the margin.

Power. For an undecided comparison, `clusters_to_decide` finds the number of families
(at this run's instances, samples and seeds) that would decide it at 80% power (POWER),
given the observed effect and variance components; `detectable_difference` gives the
minimum detectable difference (t_{0.975,df} + t_{0.80,df})·SE of a design, from stated or
observed components, so a run can be planned before it is made.

The anchor: Evan Miller, "Adding Error Bars to Evals: A Statistical Approach to Language
Model Evaluations", arXiv:2411.00640 (cluster at the level questions are drawn, paired
differences, power analysis).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

MARGIN = 0.05  # equal within 5 points of a rate
LEVEL = 0.95  # the interval that says "differs"
EQUIVALENCE_LEVEL = 0.90  # the interval that says "equal" (two one-sided tests at 5%)
POWER = 0.80  # the power that plans and "clusters to decide" aim at
CLUSTER_CAP = 100_000  # clusters_to_decide looks no further

DIFFERS = "differs"
EQUAL = "equal"
UNDECIDED = "undecided"

COLUMNS = ("cluster", "seed", "value")


@dataclass(frozen=True)
class VarianceComponents:
    """The variances of the model's family (cluster), seed and residual effects, each ≥ 0.

    From data: `from_grid`. Stated (to plan a run): VarianceComponents(cluster, seed,
    residual). With one seed the residual cannot be told apart from the family effect:
    it is counted in `cluster` and `residual` is 0 (and `seed` is 0)."""

    cluster: float
    seed: float = 0.0
    residual: float = 0.0

    def __post_init__(self):
        for name in ("cluster", "seed", "residual"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"variance component {name} must be finite and ≥ 0, "
                                 f"not {value}")

    @classmethod
    def from_grid(cls, grid: np.ndarray) -> VarianceComponents:
        """The ANOVA estimates, truncated at 0, from a clusters × seeds array of values."""
        grid = _checked_grid(grid)
        clusters, seeds = grid.shape
        if seeds == 1:
            return cls(cluster=float(np.var(grid[:, 0], ddof=1)))
        ms_cluster, ms_seed, ms_residual = mean_squares(grid)
        return cls(cluster=max(0.0, (ms_cluster - ms_residual) / seeds),
                   seed=max(0.0, (ms_seed - ms_residual) / clusters),
                   residual=ms_residual)


def mean_squares(grid: np.ndarray) -> tuple[float, float, float]:
    """MS_g, MS_s, MS_e of a clusters × seeds table without replication (at least 2 × 2):
    the mean squares of the cluster means, the seed means and the interaction."""
    grid = _checked_grid(grid)
    clusters, seeds = grid.shape
    if seeds < 2:
        raise ValueError("mean squares of seeds need at least 2 seeds")
    mean = grid.mean()
    by_cluster = grid.mean(axis=1)
    by_seed = grid.mean(axis=0)
    residuals = grid - by_cluster[:, None] - by_seed[None, :] + mean
    return (float(seeds * np.sum((by_cluster - mean) ** 2) / (clusters - 1)),
            float(clusters * np.sum((by_seed - mean) ** 2) / (seeds - 1)),
            float(np.sum(residuals ** 2) / ((clusters - 1) * (seeds - 1))))


def sampling_error(components: VarianceComponents, clusters: int,
                   seeds: int) -> tuple[float, float]:
    """(SE, df) of the grand mean of a design with `clusters` families and `seeds` seeds.

    Var = σ_u²/G + σ_v²/S + σ_e²/(G·S), written as the combination of the mean squares
    that estimates it (each term whose component is 0 left out: that is the truncation);
    df by Satterthwaite, (Σ c_i M_i)² / Σ (c_i M_i)²/df_i, from the mean squares the
    components imply at this design. With one seed: (σ_u² + σ_e²)/G with G − 1 df. A
    variance of 0 has df ∞ (its intervals are the point)."""
    if clusters < 2:
        raise ValueError(f"a mean over clusters needs at least 2 clusters, not {clusters}")
    if seeds < 1:
        raise ValueError(f"a design needs at least 1 seed, not {seeds}")
    u, v, e = components.cluster, components.seed, components.residual
    cells = clusters * seeds
    if seeds == 1:
        if v > 0:
            raise ValueError("with one seed the seed variance cannot be estimated: plan "
                             "at least 2 seeds, or state the seed variance as 0 (a "
                             "one-seed run then speaks for its own seed)")
        # (coefficient, expected mean square, its df)
        terms = [(1 / clusters, u + e, clusters - 1)]
    else:
        by_cluster = 1 / cells if u > 0 else 0.0
        by_seed = 1 / cells if v > 0 else 0.0
        terms = [(by_cluster, e + seeds * u, clusters - 1),
                 (by_seed, e + clusters * v, seeds - 1),
                 (1 / cells - by_cluster - by_seed, e, (clusters - 1) * (seeds - 1))]
    parts = [(c * m, df) for c, m, df in terms if c * m != 0]
    variance = u / clusters + v / seeds + e / cells
    if variance <= 0 or not parts:
        return 0.0, float("inf")
    return float(np.sqrt(variance)), float(variance ** 2 / sum(p ** 2 / df for p, df in parts))


def t_quantile(probability: float, df: float) -> float:
    """The t distribution's quantile (the normal's when df is ∞)."""
    return float(stats.t.ppf(probability, df))


@dataclass(frozen=True)
class Estimate:
    """A mean over clusters (and seeds) with its standard error and degrees of freedom;
    the design and components it came from, where it came from cells."""

    value: float
    se: float
    df: float
    clusters: int | None = None
    seeds: int | None = None
    components: VarianceComponents | None = None

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        """The two-sided t interval at `level`."""
        half = t_quantile((1 + level) / 2, self.df) * self.se if self.se > 0 else 0.0
        return self.value - half, self.value + half


def estimate_from_grid(grid: np.ndarray) -> Estimate:
    """The grand mean of a clusters × seeds array of values (every cell present), its SE
    and df under the model (module docstring)."""
    grid = _checked_grid(grid)
    clusters, seeds = grid.shape
    components = VarianceComponents.from_grid(grid)
    se, df = sampling_error(components, clusters, seeds)
    return Estimate(float(grid.mean()), se, df, clusters, seeds, components)


def estimate_mean(cells: pd.DataFrame) -> Estimate:
    """The mean of `cells` (columns cluster, seed, value: one row per cell, every cluster
    with every seed) under the model; a missing or repeated cell raises ValueError."""
    return estimate_from_grid(_grid(cells))


def paired_difference(a_cells: pd.DataFrame, b_cells: pd.DataFrame) -> Estimate:
    """b − a, the mean of the per-cell differences of two checkpoints' values.

    Missing cells: the comparison uses the seeds both sides have, and of those the
    clusters that both sides have at every such seed (a cluster missing a seed on either
    side is dropped, not a seed: clusters are many and seeds few). Fewer than 2 clusters
    left raises ValueError."""
    a, b = _grid_frame(a_cells, "a"), _grid_frame(b_cells, "b")
    seeds = a.columns.intersection(b.columns)
    clusters = a.index.intersection(b.index)
    a, b = a.loc[clusters, seeds], b.loc[clusters, seeds]
    complete = a.notna().all(axis=1) & b.notna().all(axis=1)
    if len(seeds) == 0 or complete.sum() < 2:
        raise ValueError(f"a paired difference needs at least 2 clusters that both "
                         f"checkpoints have at the same seeds; {int(complete.sum())} "
                         f"cluster(s) at {len(seeds)} common seed(s)")
    return estimate_from_grid((b[complete] - a[complete]).to_numpy(dtype=float))


@dataclass(frozen=True)
class Decision:
    """The outcome of a comparison under the three rules, and the intervals it rests on:
    `interval` at LEVEL (differs) and `equivalence_interval` at EQUIVALENCE_LEVEL
    (equal). `differs` and `equal` say which rule holds; both may (outcome DIFFERS)."""

    outcome: str
    estimate: Estimate
    interval: tuple[float, float]
    equivalence_interval: tuple[float, float]
    differs: bool
    equal: bool
    margin: float = MARGIN

    @property
    def note(self) -> str:
        """'' or, for a difference that is also equal within the margin, a sentence."""
        if self.differs and self.equal:
            return f"nonzero, but equal within ±{self.margin:g}"
        return ""


def decide(estimate: Estimate, margin: float = MARGIN) -> Decision:
    """DIFFERS when the 95% interval excludes 0; EQUAL when the 90% interval lies inside
    (−margin, margin); UNDECIDED otherwise. Both holding is DIFFERS (see Decision.note)."""
    interval = estimate.interval(LEVEL)
    equivalence = estimate.interval(EQUIVALENCE_LEVEL)
    differs = interval[0] > 0 or interval[1] < 0
    equal = -margin < equivalence[0] and equivalence[1] < margin
    outcome = DIFFERS if differs else EQUAL if equal else UNDECIDED
    return Decision(outcome, estimate, interval, equivalence, differs, equal, margin)


@dataclass(frozen=True)
class ClustersNeeded:
    """How many clusters would decide a comparison at POWER, and which way."""

    clusters: int
    outcome: str


def clusters_to_decide(estimate: Estimate, margin: float = MARGIN, power: float = POWER,
                       cap: int = CLUSTER_CAP) -> ClustersNeeded | None:
    """The smallest number of clusters G' (at the estimate's seeds, and its instances and
    samples per cluster) at which the observed effect δ and variance components would be
    decided with probability `power`:

    differs when |δ| ≥ (t_{0.975,df'} + t_{power,df'})·SE(G'),
    equal   when margin − |δ| ≥ (t_{0.95,df'} + t_{power,df'})·SE(G'),

    SE(G') and df' from `sampling_error` at G' (the cluster and residual terms shrink
    with G', the seed term does not). The smaller G' of the two, DIFFERS on a tie; None
    when no G' up to `cap` does (δ = 0 and |δ| ≥ margin, or the seed term alone is too
    large). Meant for UNDECIDED comparisons; needs an estimate made from cells."""
    if estimate.components is None or estimate.seeds is None:
        raise ValueError("clusters_to_decide needs an estimate from cells (its variance "
                         "components and seeds)")
    effect = abs(estimate.value)
    found = None
    # equal first, so that differs (which wins a tie) need look no further than it
    for outcome, room, level in ((EQUAL, margin - effect, EQUIVALENCE_LEVEL),
                                 (DIFFERS, effect, LEVEL)):
        if room <= 0:
            continue
        clusters = _first_clusters(estimate.components, estimate.seeds, room,
                                   (1 + level) / 2, power, found.clusters if found else cap)
        if clusters is not None:
            found = ClustersNeeded(clusters, outcome)
    return found


def _first_clusters(components: VarianceComponents, seeds: int, room: float,
                    probability: float, power: float, cap: int) -> int | None:
    """The smallest G' in [2, cap] with room ≥ (t_{probability,df'} + t_{power,df'})·SE(G').
    Scanned in order (df' need not grow with G'), in blocks that double; None at once
    when the seed term alone, with the normal's quantiles (below the t's), is too large."""
    floor = np.sqrt(components.seed / seeds)
    if room < (stats.norm.ppf(probability) + stats.norm.ppf(power)) * floor:
        return None
    start, size = 2, 64
    while start <= cap:
        candidates = np.arange(start, min(cap, start + size - 1) + 1)
        errors = [sampling_error(components, int(g), seeds) for g in candidates]
        se = np.array([e for e, _ in errors])
        df = np.array([d for _, d in errors])
        needed = (stats.t.ppf(probability, df) + stats.t.ppf(power, df)) * se
        reached = np.flatnonzero(room >= needed)
        if reached.size:
            return int(candidates[reached[0]])
        start, size = start + size, size * 2
    return None


@dataclass(frozen=True)
class Detectable:
    """A design's standard error, degrees of freedom and minimum detectable difference."""

    se: float
    df: float
    difference: float


def detectable_difference(components: VarianceComponents, clusters: int, seeds: int = 1,
                          level: float = LEVEL, power: float = POWER) -> Detectable:
    """The minimum detectable difference of a design, (t_{(1+level)/2,df} + t_{power,df})·SE:
    the smallest true difference that a two-sided test at 1 − level finds with probability
    `power`. Components stated (to plan) or observed (Estimate.components)."""
    se, df = sampling_error(components, clusters, seeds)
    factor = t_quantile((1 + level) / 2, df) + t_quantile(power, df)
    return Detectable(se, df, factor * se)


def _checked_grid(grid: np.ndarray) -> np.ndarray:
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 2:
        raise ValueError(f"values must be a clusters × seeds table, not shape {grid.shape}")
    if grid.shape[0] < 2:
        raise ValueError(f"a mean over clusters needs at least 2 clusters, "
                         f"not {grid.shape[0]}")
    if grid.shape[1] < 1:
        raise ValueError("a mean over clusters needs at least 1 seed")
    if not np.isfinite(grid).all():
        raise ValueError("every cell needs a finite value")
    return grid


def _grid_frame(cells: pd.DataFrame, name: str = "cells") -> pd.DataFrame:
    """cells as a clusters × seeds frame (NaN where a cell is missing)."""
    missing = set(COLUMNS) - set(cells.columns)
    if missing:
        raise ValueError(f"{name} lack the column(s) {sorted(missing)}")
    repeated = cells.duplicated(["cluster", "seed"])
    if repeated.any():
        first = cells.loc[repeated, ["cluster", "seed"]].iloc[0].tolist()
        raise ValueError(f"{name}: more than one value for the cell (cluster, seed) "
                         f"{tuple(first)}")
    if cells["value"].isna().any():
        raise ValueError(f"{name}: a cell without a value")
    return cells.pivot(index="cluster", columns="seed", values="value")


def _grid(cells: pd.DataFrame) -> np.ndarray:
    frame = _grid_frame(cells)
    if frame.isna().any().any():
        raise ValueError("cells: every cluster needs a value at every seed (a missing "
                         "cell); a paired difference drops such clusters")
    return frame.to_numpy(dtype=float)
