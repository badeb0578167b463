"""The frontier distance: crafted curves and points, and its bootstrap interval over
families."""

import math

import numpy as np
import pytest

from codefrontier.analysis.distance import (
    bootstrap_distances,
    distances_with_interval,
    frontier_distance,
    rates,
)

# (correctness-failure, optimization-failure) rates along α: the trade-off of the paper,
# fewer optimization failures at the price of more correctness failures
CURVE = np.array([[0.2, 0.4], [0.3, 0.2], [0.5, 0.1]])


def d(point):
    return float(frontier_distance(np.array(point, dtype=float), CURVE))


def test_points_on_the_curve_are_at_distance_zero():
    for vertex in CURVE:
        assert d(vertex) == pytest.approx(0.0)
    assert d([0.25, 0.3]) == pytest.approx(0.0)  # the middle of the first segment


def test_a_point_beyond_the_curve_is_positive_by_the_diagonal_gap():
    # (0.25, 0.3) is on the curve; 5 points fewer of both failures lies 5·√2 points out
    assert d([0.20, 0.25]) == pytest.approx(0.05 * math.sqrt(2))
    assert d([0.0, 0.0]) > 0.2


def test_a_point_the_curve_dominates_is_negative():
    assert d([0.35, 0.25]) == pytest.approx(-0.05 * math.sqrt(2))
    assert d([0.6, 0.5]) < 0


def test_beyond_an_end_of_the_curve_counts_as_outside():
    # fewer optimization failures than any α reaches, correctness failures as at α = 1:
    # nothing on the curve is as good in both rates
    assert d([0.5, 0.05]) == pytest.approx(0.05 * math.sqrt(2))
    # more correctness failures than α = 1 and no fewer optimization failures: inside
    assert d([0.6, 0.1]) == pytest.approx(0.0)
    assert d([0.6, 0.12]) < 0


def test_a_curve_of_one_point():
    single = CURVE[:1]
    assert float(frontier_distance(np.array([0.1, 0.3]), single)) == pytest.approx(
        0.1 * math.sqrt(2))


def counts_for(rates_by_checkpoint, problems=40, samples=10, seed=0):
    """Per-problem counts [checkpoints, problems, 3] whose pooled rates are near the given
    ones, with problem-to-problem variation."""
    rng = np.random.default_rng(seed)
    out = np.zeros((len(rates_by_checkpoint), problems, 3))
    for i, (corr, opt) in enumerate(rates_by_checkpoint):
        draws = rng.multinomial(samples, [corr, opt, 1 - corr - opt], size=problems)
        out[i, :, 0], out[i, :, 1], out[i, :, 2] = samples, draws[:, 0], draws[:, 1]
    return out


def test_the_interval_brackets_the_estimate_and_separates_a_clear_improvement():
    # three curve checkpoints, one far outside, one far inside
    counts = counts_for([*CURVE, (0.1, 0.1), (0.5, 0.4)], problems=60)
    result = distances_with_interval(counts, on_curve=[0, 1, 2], reps=400)
    estimate, low, high = result.T
    assert np.all(low <= estimate + 1e-12) and np.all(estimate <= high + 1e-12)
    assert low[3] > 0, "a point 0.1 better in both rates lies outside with confidence"
    assert high[4] < 0, "a point the curve dominates lies inside with confidence"


def test_no_curve_gives_nan():
    counts = counts_for([(0.2, 0.2)])
    assert np.isnan(distances_with_interval(counts, on_curve=[0])).all()


def test_the_bootstrap_is_reproducible_from_its_seed():
    counts = counts_for([*CURVE, (0.25, 0.25)])
    first = distances_with_interval(counts, [0, 1, 2], reps=200, seed=3)
    assert np.array_equal(first, distances_with_interval(counts, [0, 1, 2], reps=200, seed=3))


def test_the_interpolation_distance_leaves_the_extrapolated_points_out_of_the_curve():
    """An extrapolated merge beyond the [0, 1] curve is on the whole α curve (distance 0)
    but beyond the interpolation curve; a run off the curve is measured against both."""
    from codefrontier.analysis.frontier import add_frontier_distances

    # (correctness-failure, optimization-failure) samples per checkpoint, 20 problems
    def verdicts(correctness: int, optimization: int) -> list[dict]:
        outcomes = (["correctness_failure"] * correctness + ["optimization_failure"] * optimization
                    + ["correct"] * (10 - correctness - optimization))
        return [{"problem_id": f"p{p}", "outcome": o} for p in range(20) for o in outcomes]

    points = {0.0: (2, 4), 0.5: (3, 2), 1.0: (5, 1), 1.5: (4, 0), None: (6, 3)}
    rows = [{"model": "m", "setting": "s", "seed": 0, "difficulty": "all", "alpha": a} for a in points]
    add_frontier_distances(rows, [verdicts(*counts) for counts in points.values()])
    beyond, inside = rows[3], rows[4]
    assert beyond["frontier_distance"] == pytest.approx(0.0)
    assert beyond["interpolation_distance"] == pytest.approx(0.1 * math.sqrt(2))
    assert beyond["interpolation_distance_lo"] > 0
    assert rows[1]["interpolation_distance"] == pytest.approx(0.0)
    assert inside["frontier_distance"] < 0 and inside["interpolation_distance"] < 0


# (correctness failures, optimization failures) of 10 samples per instance: 2 bundled
# families of 3 instances, for two curve checkpoints (α 0 and 1) and one off the curve
FAMILY_COUNTS = {
    0.0: [(1, 5), (2, 4), (1, 6), (2, 3), (1, 5), (3, 4)],
    1.0: [(5, 1), (4, 2), (6, 1), (4, 2), (5, 1), (4, 0)],
    None: [(1, 1), (2, 2), (3, 1), (4, 3), (2, 2), (3, 3)],
}
INSTANCES = [f"bundled/f{g}/eval-{i}" for g in range(2) for i in range(3)]


def family_verdicts(per_instance):
    return [{"problem_id": pid, "outcome": outcome}
            for pid, (corr, opt) in zip(INSTANCES, per_instance, strict=True)
            for outcome in (["correctness_failure"] * corr + ["optimization_failure"] * opt
                            + ["correct"] * (10 - corr - opt))]


def by_family_draws():
    """d of the off-curve checkpoint on each resample two families can give: f0 twice,
    one of each, f1 twice."""
    from codefrontier.analysis.frontier import failure_counts

    counts = np.array([failure_counts(family_verdicts(c), ["bundled/f0", "bundled/f1"])
                       for c in FAMILY_COUNTS.values()])
    resampled = rates(counts, np.array([[2, 0], [1, 1], [0, 2]]))  # [3, checkpoints, 2]
    return counts, frontier_distance(resampled[:, 2], resampled[:, :2])


def test_failure_counts_sum_the_instances_of_a_family():
    counts, _ = by_family_draws()
    assert counts[0].tolist() == [[30, 4, 15], [30, 6, 12]]


def test_the_bootstrap_resamples_families_not_instances():
    counts, possible = by_family_draws()
    drawn = bootstrap_distances(counts, on_curve=[0, 1])[:, 2]
    assert set(np.round(drawn, 12)) == set(np.round(possible, 12))
    # resampling the instances instead would reach values no draw of families can
    instances = np.array([[(10, corr, opt) for corr, opt in per_instance]
                          for per_instance in FAMILY_COUNTS.values()])
    assert len(set(np.round(bootstrap_distances(instances, on_curve=[0, 1])[:, 2], 12))) > 10


def test_the_frontier_table_interval_is_over_families():
    from codefrontier.analysis.frontier import add_frontier_distances

    _, possible = by_family_draws()
    rows = [{"model": "m", "setting": "s", "seed": 0, "difficulty": "all", "alpha": a}
            for a in FAMILY_COUNTS]
    add_frontier_distances(rows, [family_verdicts(c) for c in FAMILY_COUNTS.values()])
    low, high = rows[2]["frontier_distance_lo"], rows[2]["frontier_distance_hi"]
    assert low == pytest.approx(possible.min()) and high == pytest.approx(possible.max())
