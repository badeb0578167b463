"""codefrontier.analysis.stats: the estimator against figures computed by hand, the three
rules, power and the minimum detectable difference, the bootstrap, and the coverage of
its intervals on simulated evaluations whose truth is known (issue 49, item 6)."""

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy import stats as scipy_stats

from codefrontier.analysis.stats import (
    DIFFERS,
    EQUAL,
    EQUIVALENCE_LEVEL,
    LEVEL,
    MARGIN,
    POWER,
    UNDECIDED,
    Estimate,
    VarianceComponents,
    clusters_to_decide,
    decide,
    detectable_difference,
    estimate_from_grid,
    estimate_mean,
    mean_squares,
    paired_difference,
    sampling_error,
)


def cells_of(grid, clusters=None, seeds=None) -> pd.DataFrame:
    grid = np.asarray(grid, dtype=float)
    clusters = clusters or [f"f{g}" for g in range(grid.shape[0])]
    seeds = seeds or list(range(grid.shape[1]))
    return pd.DataFrame([{"cluster": c, "seed": s, "value": grid[i, j]}
                         for i, c in enumerate(clusters) for j, s in enumerate(seeds)])


# ---- the estimator, by hand -------------------------------------------------------------

def test_one_seed_is_the_one_sample_t():
    values = np.array([0.1, 0.3, 0.2, 0.6, 0.4])
    estimate = estimate_mean(cells_of(values[:, None]))
    assert estimate.value == pytest.approx(0.32)
    assert estimate.se == pytest.approx(values.std(ddof=1) / np.sqrt(5))
    assert estimate.df == 4
    t = scipy_stats.ttest_1samp(values, 0.0).confidence_interval(0.95)
    assert estimate.interval(0.95) == pytest.approx((t.low, t.high))
    assert estimate.components == VarianceComponents(cluster=values.var(ddof=1))


def test_a_three_by_two_table_by_hand():
    # rows (families) 0 2 | 2 6 | 4 4: family means 1 4 4, seed means 2 4, grand mean 3.
    # SS_g = 2·(4+1+1) = 12 → MS_g = 6;  SS_s = 3·(1+1) = 6 → MS_s = 6;
    # residuals 0 0 | −1 1 | 1 −1 → SS_e = 4 → MS_e = 4/2 = 2.
    # σ_e² = 2, σ_u² = (6−2)/2 = 2, σ_v² = (6−2)/3 = 4/3;
    # Var = 2/3 + (4/3)/2 + 2/6 = 5/3 = (MS_g + MS_s − MS_e)/6;
    # df = 10² / (6²/2 + 6²/1 + 2²/2) = 100/56.
    grid = [[0, 2], [2, 6], [4, 4]]
    assert mean_squares(np.array(grid)) == pytest.approx((6, 6, 2))
    estimate = estimate_mean(cells_of(grid))
    assert estimate.value == 3
    assert estimate.components.cluster == pytest.approx(2)
    assert estimate.components.seed == pytest.approx(4 / 3)
    assert estimate.components.residual == pytest.approx(2)
    assert estimate.se ** 2 == pytest.approx(5 / 3)
    assert estimate.df == pytest.approx(100 / 56)
    half = scipy_stats.t.ppf(0.975, 100 / 56) * np.sqrt(5 / 3)
    assert estimate.interval() == pytest.approx((3 - half, 3 + half))


def test_a_two_by_two_table_by_hand():
    # 1 3 | 5 11: family means 2 8, seed means 3 7, grand 5; MS_g = 2·18 = 36,
    # MS_s = 2·8 = 16, residuals ±1 → MS_e = 4; Var = (36 + 16 − 4)/4 = 12;
    # df = 48² / (18²/1 + 4²/1 + 1²/1) — the terms c·M: 36/4, 16/4, −4/4.
    estimate = estimate_from_grid(np.array([[1, 3], [5, 11]]))
    assert estimate.se ** 2 == pytest.approx(12)
    assert estimate.df == pytest.approx(144 / (81 + 16 + 1))


def test_components_are_truncated_at_zero():
    # 0 2 | 2 0 | 1 1: family and seed means all 1, so MS_g = MS_s = 0 and MS_e = 4/2 = 2;
    # untruncated σ_u² = −1 and σ_v² = −2/3 would make the variance negative. Truncated:
    # Var = σ_e²/6 = 1/3 with the residual's df, (3−1)(2−1) = 2.
    estimate = estimate_from_grid(np.array([[0, 2], [2, 0], [1, 1]]))
    assert estimate.components == VarianceComponents(cluster=0, seed=0, residual=2)
    assert estimate.se ** 2 == pytest.approx(1 / 3)
    assert estimate.df == pytest.approx(2)
    # a seed shift of 2 on top: MS_s = 3·(1+1) = 6, σ_v² = 4/3, σ_u² still 0;
    # Var = (4/3)/2 + 2/6 = 1 = MS_s/6, a single mean square: df = S − 1 = 1.
    shifted = estimate_from_grid(np.array([[0, 4], [2, 2], [1, 3]]))
    assert shifted.components.cluster == 0
    assert shifted.components.seed == pytest.approx(4 / 3)
    assert shifted.se ** 2 == pytest.approx(1)
    assert shifted.df == pytest.approx(1)


def test_no_variation_is_a_point():
    estimate = estimate_from_grid(np.full((4, 2), 0.25))
    assert estimate.se == 0 and estimate.interval() == (0.25, 0.25)


@pytest.mark.parametrize("grid", [[[0.5]], [[0.5, 0.4]]])
def test_one_cluster_is_refused(grid):
    with pytest.raises(ValueError, match="at least 2 clusters"):
        estimate_from_grid(np.array(grid))


def test_a_missing_or_repeated_cell_is_refused():
    cells = cells_of([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    with pytest.raises(ValueError, match="every seed"):
        estimate_mean(cells.iloc[1:])
    with pytest.raises(ValueError, match="more than one value"):
        estimate_mean(pd.concat([cells, cells.iloc[:1]]))


def test_a_paired_difference_uses_the_cells_both_have():
    a = cells_of([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.2, 0.2]])
    b = cells_of([[0.3, 0.2], [0.4, 0.4], [0.9, 0.6]], seeds=[0, 1])
    b = pd.concat([b, pd.DataFrame([{"cluster": "f3", "seed": 1, "value": 0.5},
                                    {"cluster": "f0", "seed": 7, "value": 0.0}])])
    # f3 lacks seed 0 on b's side: dropped; seed 7 only b has: unused
    estimate = paired_difference(a, b)
    assert estimate.clusters == 3 and estimate.seeds == 2
    expected = estimate_from_grid(np.array([[0.2, 0.0], [0.1, 0.0], [0.4, 0.0]]))
    assert estimate.value == pytest.approx(expected.value)
    assert estimate.se == pytest.approx(expected.se)
    with pytest.raises(ValueError, match="at least 2 clusters"):
        paired_difference(a, b[b["cluster"].isin(["f0", "f3"])])


# ---- the three rules ---------------------------------------------------------------------

def test_differs():
    decision = decide(Estimate(0.10, 0.02, 30))
    assert decision.outcome == DIFFERS and decision.differs and not decision.equal
    assert decision.interval[0] > 0


def test_equal():
    decision = decide(Estimate(0.0, 0.01, 30))
    assert decision.outcome == EQUAL and decision.equal and not decision.differs
    half = scipy_stats.t.ppf(0.95, 30) * 0.01
    assert decision.equivalence_interval == pytest.approx((-half, half))


def test_undecided():
    decision = decide(Estimate(0.03, 0.03, 30))
    assert decision.outcome == UNDECIDED and not decision.differs and not decision.equal
    assert decision.note == ""


def test_a_tiny_nonzero_effect_differs_and_is_noted_equal():
    decision = decide(Estimate(0.02, 0.005, 30))
    assert decision.differs and decision.equal
    assert decision.outcome == DIFFERS
    assert "equal within" in decision.note


def test_the_rules_use_the_stated_levels():
    assert (LEVEL, EQUIVALENCE_LEVEL, MARGIN, POWER) == (0.95, 0.90, 0.05, 0.80)
    # equal at the 90% interval's edge: value + t_{0.95}·se just under the margin
    se = 0.01
    edge = MARGIN - scipy_stats.t.ppf(0.95, 20) * se
    assert decide(Estimate(edge - 1e-9, se, 20)).equal
    assert not decide(Estimate(edge + 1e-9, se, 20)).equal


# ---- power and the minimum detectable difference ----------------------------------------

def reaches(effect, components, clusters, seeds, outcome):
    se, df = sampling_error(components, clusters, seeds)
    if outcome == DIFFERS:
        return abs(effect) >= (scipy_stats.t.ppf(0.975, df) + scipy_stats.t.ppf(0.8, df)) * se
    return MARGIN - abs(effect) >= (scipy_stats.t.ppf(0.95, df)
                                    + scipy_stats.t.ppf(0.8, df)) * se


@pytest.mark.parametrize("effect, components, seeds, outcome", [
    (0.04, VarianceComponents(cluster=0.02, seed=0.0001, residual=0.004), 3, DIFFERS),
    (0.005, VarianceComponents(cluster=0.01, seed=0.00005, residual=0.002), 3, EQUAL),
    (0.03, VarianceComponents(cluster=0.015), 1, DIFFERS),
])
def test_clusters_to_decide_just_reaches_the_boundary(effect, components, seeds, outcome):
    estimate = Estimate(effect, 0.05, 5, clusters=16, seeds=seeds, components=components)
    assert decide(estimate).outcome == UNDECIDED
    needed = clusters_to_decide(estimate)
    assert needed.outcome == outcome
    assert reaches(effect, components, needed.clusters, seeds, outcome)
    for either in (DIFFERS, EQUAL):
        assert not reaches(effect, components, needed.clusters - 1, seeds, either)


def test_no_number_of_clusters_decides_against_seed_variance():
    # 6 points: never equal within 5; the seed term alone, √(0.01/3) ≈ 0.058, is more
    # than 6 points / 2.8, so no number of families makes it differ either
    estimate = Estimate(0.06, 0.07, 3, clusters=16, seeds=3,
                        components=VarianceComponents(cluster=0.01, seed=0.01, residual=0.01))
    assert clusters_to_decide(estimate) is None


def test_clusters_to_decide_needs_components():
    with pytest.raises(ValueError, match="from cells"):
        clusters_to_decide(Estimate(0.01, 0.02, 10))


def test_the_minimum_detectable_difference():
    components = VarianceComponents(cluster=0.02, seed=0.0004, residual=0.01)
    planned = detectable_difference(components, clusters=16, seeds=3)
    se, df = sampling_error(components, 16, 3)
    assert planned.se == se and planned.df == df
    assert se ** 2 == pytest.approx(0.02 / 16 + 0.0004 / 3 + 0.01 / 48)
    factor = scipy_stats.t.ppf(0.975, df) + scipy_stats.t.ppf(0.80, df)
    assert planned.difference == pytest.approx(factor * se)
    # one seed: the one-sample t's df, and the residual counted with the clusters
    one = detectable_difference(VarianceComponents(cluster=0.02), clusters=16)
    assert one.df == 15 and one.se == pytest.approx(np.sqrt(0.02 / 16))
    with pytest.raises(ValueError, match="one seed"):
        detectable_difference(components, clusters=16, seeds=1)


def test_the_planner_agrees_with_the_estimate():
    grid = np.array([[0.1, 0.3, 0.2], [0.4, 0.3, 0.6], [0.0, 0.1, 0.1], [0.5, 0.2, 0.4]])
    estimate = estimate_from_grid(grid)
    planned = detectable_difference(estimate.components, clusters=4, seeds=3)
    assert (planned.se, planned.df) == pytest.approx((estimate.se, estimate.df))


# ---- coverage on simulated evaluations (issue 49, item 6) -------------------------------
# A model with known truth: a family's difficulty (shared by both checkpoints), its
# instances' difficulties, a per-family effect of the change, per-seed shifts of each
# checkpoint and family × seed interactions (training randomness), then Bernoulli samples.
# Parameters fixed from plausible magnitudes before the first run, each with its reason:
RUNS = 1000          # coverage to ±0.7 points (Monte Carlo SE √(.95·.05/1000))
FAMILIES = 16        # the default eval set: 16 families
INSTANCES = 3        # × 3 instances per family
SAMPLES = 5          # × 5 samples per instance
SEEDS = 3            # RL repeated over 3 seeds, as a seed study would
BASE_RATE = 0.45     # a mid-difficulty set: checkpoint a solves about half
FAMILY_SD = 1.0      # logit SD of families: family rates spread over ~0.2-0.7
INSTANCE_SD = 0.7    # instances of one family differ less than families do
EFFECT_LOGIT = 0.25  # b's gain, ~5 points at a rate near one half
EFFECT_SD = 0.3      # the gain varies by family (RL helps some kinds of problem more)
SEED_SD = 0.15       # a training seed shifts a checkpoint's rate by ~3-4 points
FAMILY_SEED_SD = 0.2  # and each family's rate a little more or less under that seed
TRUTH_DRAWS = 2_000_000  # the true difference to ~1e-4


def simulate(rng: np.random.Generator):
    """Correct counts of checkpoints a and b, shape (RUNS, FAMILIES, INSTANCES, SEEDS)."""
    shape = (RUNS, FAMILIES, INSTANCES, SEEDS)
    family = rng.normal(0, FAMILY_SD, (RUNS, FAMILIES, 1, 1))
    instance = rng.normal(0, INSTANCE_SD, (RUNS, FAMILIES, INSTANCES, 1))
    gain = EFFECT_LOGIT + rng.normal(0, EFFECT_SD, (RUNS, FAMILIES, 1, 1))
    base = special.logit(BASE_RATE) + family + instance
    seed_a, seed_b = (rng.normal(0, SEED_SD, (RUNS, 1, 1, SEEDS)) for _ in range(2))
    cross_a, cross_b = (rng.normal(0, FAMILY_SEED_SD, (RUNS, FAMILIES, 1, SEEDS))
                        for _ in range(2))
    rate_a = special.expit(base + seed_a + cross_a)
    rate_b = special.expit(base + gain + seed_b + cross_b)
    return (rng.binomial(SAMPLES, np.broadcast_to(rate_a, shape)),
            rng.binomial(SAMPLES, np.broadcast_to(rate_b, shape)))


def true_difference(rng: np.random.Generator) -> float:
    """E[rate_b − rate_a] over the population of families, instances and seeds."""
    draw = lambda sd: rng.normal(0, sd, TRUTH_DRAWS)  # noqa: E731
    base = special.logit(BASE_RATE) + draw(FAMILY_SD) + draw(INSTANCE_SD)
    rate_a = special.expit(base + draw(SEED_SD) + draw(FAMILY_SEED_SD))
    rate_b = special.expit(base + EFFECT_LOGIT + draw(EFFECT_SD) + draw(SEED_SD)
                           + draw(FAMILY_SEED_SD))
    return float(np.mean(rate_b - rate_a))


def old_standard_error(correct: np.ndarray) -> np.ndarray:
    """The rule findings.py used: each checkpoint's rate clustered by instance, seeds
    pooled as one run — frontier.cluster_standard_error, sqrt(P/(P−1)·Σ(x_i − p·n_i)²)/Σn,
    per run. correct: (RUNS, FAMILIES, INSTANCES, SEEDS)."""
    x = correct.sum(axis=3).reshape(RUNS, -1)  # (runs, instances P)
    n = SAMPLES * SEEDS
    problems, total = x.shape[1], n * x.shape[1]
    rate = x.sum(axis=1, keepdims=True) / total
    return np.sqrt(problems / (problems - 1) * ((x - rate * n) ** 2).sum(axis=1)) / total


def test_coverage_of_the_paired_family_seed_interval():
    rng = np.random.default_rng(20241104)
    truth = true_difference(rng)
    correct_a, correct_b = simulate(rng)
    per_cell = INSTANCES * SAMPLES
    cells_a = correct_a.sum(axis=2) / per_cell  # (runs, families, seeds)
    cells_b = correct_b.sum(axis=2) / per_cell

    new_hits, new_widths = [], []
    for run in range(RUNS):
        low, high = estimate_from_grid(cells_b[run] - cells_a[run]).interval(LEVEL)
        new_hits.append(low <= truth <= high)
        new_widths.append(high - low)
    new = float(np.mean(new_hits))

    difference = cells_b.mean(axis=(1, 2)) - cells_a.mean(axis=(1, 2))
    old_se = np.hypot(old_standard_error(correct_a), old_standard_error(correct_b))
    old = float(np.mean(np.abs(difference - truth) <= 1.96 * old_se))

    # the DataFrame path gives the grid's answer (run 0)
    frame = paired_difference(cells_of(cells_a[0]), cells_of(cells_b[0]))
    grid = estimate_from_grid(cells_b[0] - cells_a[0])
    assert (frame.value, frame.se, frame.df) == pytest.approx((grid.value, grid.se, grid.df))

    print(f"\ntrue difference {truth:.4f}; 95% coverage over {RUNS} runs: "
          f"new (paired, family-clustered, seeds crossed, Satterthwaite t) {new:.3f}, "
          f"width median {np.median(new_widths):.3f} mean {np.mean(new_widths):.3f}; old "
          f"(instance-clustered, independent, ±1.96 SE) {old:.3f}, width median "
          f"{np.median(2 * 1.96 * old_se):.3f}; "
          f"SD of the estimate {np.std(difference):.4f}")
    assert 0.93 <= new <= 0.97
    assert not 0.93 <= old <= 0.97
