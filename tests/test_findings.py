"""The five findings' verdicts, on crafted frontier, cluster and ensemble tables."""

import pandas as pd
from cluster_tables import cluster_table

from codefrontier.analysis.findings import (
    FAILS,
    HOLDS,
    PARTIAL,
    UNMEASURED,
    findings,
    findings_table,
)
from codefrontier.analysis.stats import UNDECIDED


def row(checkpoint, kind, alpha, correct, optimization, correctness, se=0.02, setting="reasoning",
        **distances):
    rates = {"correct": correct, "optimization_failure": optimization,
             "correctness_failure": correctness,
             "format_error": round(1 - correct - optimization - correctness, 6)}
    return {"model": "tiny", "setting": setting, "checkpoint": checkpoint, "kind": kind,
            "alpha": alpha, "difficulty": "all", **{f"rate_{k}": v for k, v in rates.items()},
            **{f"se_{k}": se for k in rates}, **distances}


def distance(column, estimate, low, high):
    return {column: estimate, f"{column}_lo": low, f"{column}_hi": high}


# The paper's trade-off: optimization failures fall, correctness failures rise, the solve
# rate stays at 0.30
TRADE_OFF = [row("rl-k2", "rl", 0.0, 0.30, 0.40, 0.28), row("a0.5", "merge", 0.5, 0.30, 0.25, 0.43),
             row("rl-kinf", "rl", 1.0, 0.30, 0.10, 0.58)]
NO_ENSEMBLE = pd.DataFrame(columns=["model", "setting", "pool", "k", "pass_at_k"])


def verdicts(rows, ensemble=NO_ENSEMBLE, jitter=0.005):
    return {f.number: f for f in findings(pd.DataFrame(rows), cluster_table(rows, jitter),
                                          ensemble, "tiny", "reasoning")}


def test_a_trade_off_with_a_flat_solve_rate_holds():
    found = verdicts(TRADE_OFF)[1]
    assert found.verdict == HOLDS
    assert found.figure.startswith("solved +0.000 [-0.001, +0.001]: equal; optimization "
                                   "failures -0.300 [")
    assert "(equal within ±0.05)" in found.reason


def test_a_solve_rate_not_shown_to_move_is_not_flat_and_the_finding_undecided():
    """The old rule called a change under 2 SE "flat"; now flat needs equal shown, and
    the finding says how many families would decide it."""
    moving = [row("rl-k2", "rl", 0.0, 0.30, 0.40, 0.28),
              row("rl-kinf", "rl", 1.0, 0.33, 0.10, 0.55)]
    rows = pd.DataFrame(moving)
    table = cluster_table(moving)
    # the solve rate's cells: the same shift in both, and a noisy extra per family
    noisy = table["checkpoint"] == "rl-kinf"
    swing = pd.Series([0.12, -0.12] * 8 * 1).to_numpy() * 1000
    table.loc[noisy, "n_correct"] += swing.astype(int)
    table.loc[noisy, "n_format_error"] -= swing.astype(int)
    found = findings(rows, table, NO_ENSEMBLE, "tiny", "reasoning")[0]
    assert found.verdict == UNDECIDED
    assert "whether the solve rate stays flat is undecided" in found.reason
    assert "families would decide it" in found.reason


def test_an_endpoint_that_solves_more_dominates_instead_of_trading():
    rows = [row("rl-k2", "rl", 0.0, 0.17, 0.20, 0.63), row("rl-kinf", "rl", 1.0, 0.41, 0.0, 0.59)]
    found = verdicts(rows)[1]
    assert found.verdict == FAILS and "dominates" in found.reason


def test_half_of_the_trade_off_is_partial_and_no_fall_is_no_trade_off():
    to_format = [row("rl-k2", "rl", 0.0, 0.30, 0.40, 0.28), row("rl-kinf", "rl", 1.0, 0.30, 0.10, 0.28)]
    assert verdicts(to_format)[1].verdict == PARTIAL  # the failures moved to format errors
    flat = [row("rl-k2", "rl", 0.0, 0.30, 0.20, 0.40), row("rl-kinf", "rl", 1.0, 0.30, 0.20, 0.40)]
    found = verdicts(flat)[1]
    assert found.verdict == FAILS and "do not fall" in found.reason


def test_intermediate_rewards_are_placed_against_the_interpolation_curve():
    assert verdicts(TRADE_OFF)[2].verdict == UNMEASURED
    on = row("rl-k3", "rl", None, 0.3, 0.25, 0.43,
             **distance("interpolation_distance", 0.0, -0.05, 0.04))
    beyond = row("rl-k4", "rl", None, 0.4, 0.25, 0.33,
                 **distance("interpolation_distance", 0.08, 0.02, 0.13))
    shaped = row("rl-shaped-cont", "rl", None, 0.3, 0.3, 0.3,
                 **distance("interpolation_distance", 0.08, 0.02, 0.13))
    assert verdicts([*TRADE_OFF, on])[2].verdict == HOLDS
    assert verdicts([*TRADE_OFF, beyond])[2].verdict == FAILS
    mixed = verdicts([*TRADE_OFF, on, beyond, shaped])[2]  # a shaped run is no R_k
    assert mixed.verdict == PARTIAL
    assert mixed.figure == ("rl-k3 +0.000 [-0.050, +0.040]: not beyond (differs from both "
                            "endpoints); rl-k4 +0.080 [+0.020, +0.130]: beyond (differs from "
                            "both endpoints)")


def test_an_intermediate_run_with_an_endpoints_failure_rates_is_not_measured():
    # R_3 trained as R_2 did (the same reward on every program it wrote): on the curve
    # trivially, since the curve starts at R_2
    like_low = row("rl-k3", "rl", None, 0.31, 0.38, 0.29,
                   **distance("interpolation_distance", -0.01, -0.06, 0.0))
    found = verdicts([*TRADE_OFF, like_low])[2]
    assert found.verdict == UNMEASURED and "equal an endpoint's" in found.reason
    assert found.figure == "rl-k3 -0.010 [-0.060, +0.000]: not beyond (equals an endpoint)"
    between = row("rl-k4", "rl", None, 0.3, 0.25, 0.43,
                  **distance("interpolation_distance", 0.0, -0.05, 0.04))
    found = verdicts([*TRADE_OFF, like_low, between])[2]
    assert found.verdict == HOLDS and "each run that differs from the endpoints" in found.reason


def test_a_run_not_shown_equal_to_an_endpoint_nor_different_leaves_finding_2_undecided():
    """rl-k3 is 2 points from rl-k2 in both failure rates, with per-family noise: equal
    to it or not is undecided, and beyond the curve if it counts: the verdict depends."""
    close = row("rl-k3", "rl", None, 0.30, 0.38, 0.30,
                **distance("interpolation_distance", 0.06, 0.02, 0.10))
    found = verdicts([*TRADE_OFF, close], jitter=0.08)[2]
    assert found.verdict == UNDECIDED
    assert "equal to an endpoint or not: undecided" in found.figure


def test_extrapolation_near_beyond_interpolation_and_far_through_format_errors_holds():
    near = row("a1.5", "merge", 1.5, 0.35, 0.05, 0.55,
               **distance("interpolation_distance", 0.03, 0.01, 0.05))
    far = row("a3", "merge", 3.0, 0.05, 0.05, 0.60,
              **distance("interpolation_distance", -0.2, -0.3, -0.1))  # format errors 0.30
    assert verdicts([*TRADE_OFF, near, far])[3].verdict == HOLDS
    only_near = verdicts([*TRADE_OFF, near])[3]
    assert only_near.verdict == PARTIAL and "nothing at α ≤ -1 or ≥ 2" in only_near.reason
    wrong_way = row("a3", "merge", 3.0, 0.05, 0.05, 0.90,
                    **distance("interpolation_distance", -0.3, -0.4, -0.2))
    assert verdicts([*TRADE_OFF, near, wrong_way])[3].verdict == PARTIAL
    assert verdicts(TRADE_OFF)[3].verdict == UNMEASURED


def test_ensembles_are_judged_at_the_largest_budget():
    def pool(k, gain, low, high):
        return {"model": "tiny", "setting": "reasoning", "pool": "interpolation+extrapolation",
                "k": k, "pass_at_k": 0.5 + gain, "gain_over_best": gain, "gain_low": low,
                "gain_high": high}

    losing_early = pd.DataFrame([pool(1, -0.1, -0.15, -0.05), pool(32, 0.03, 0.01, 0.05)])
    found = verdicts(TRADE_OFF, losing_early)[4]
    assert found.verdict == HOLDS and found.figure.startswith("k = 32:")
    undecided = verdicts(TRADE_OFF, pd.DataFrame([pool(8, 0.01, -0.05, 0.07)]))[4]
    assert undecided.verdict == UNDECIDED and "families would decide it" in undecided.figure
    assert verdicts(TRADE_OFF, pd.DataFrame([pool(8, -0.02, -0.05, 0.01)]))[4].verdict == FAILS
    assert verdicts(TRADE_OFF, pd.DataFrame([pool(8, -0.08, -0.12, -0.03)]))[4].verdict == FAILS
    assert verdicts(TRADE_OFF)[4].verdict == UNMEASURED


def test_shaping_on_the_front_and_repair_beyond_it():
    shaped = row("rl-shaped-disc", "rl", None, 0.3, 0.2, 0.4,
                 **distance("frontier_distance", -0.01, -0.04, 0.03))
    repair = row("rl-repair-kinf", "rl", None, 0.4, 0.1, 0.4,
                 **distance("frontier_distance", 0.05, 0.01, 0.09))
    inside = row("rl-repair-kinf", "rl", None, 0.2, 0.2, 0.5,
                 **distance("frontier_distance", -0.06, -0.16, 0.03))
    assert verdicts([*TRADE_OFF, shaped, repair])[5].verdict == HOLDS
    found = verdicts([*TRADE_OFF, shaped, inside])[5]
    assert found.verdict == PARTIAL and found.reason == "shaping on the curve; repair not beyond it"
    assert verdicts([*TRADE_OFF, shaped])[5].verdict == PARTIAL  # repair not trained
    assert verdicts(TRADE_OFF)[5].verdict == UNMEASURED
    # an interval that holds 0 but reaches past ±5 points shows no run on the curve
    wide = row("rl-shaped-disc", "rl", None, 0.3, 0.2, 0.4,
               **distance("frontier_distance", -0.02, -0.08, 0.04))
    assert verdicts([*TRADE_OFF, wide, repair])[5].verdict == UNDECIDED


def test_a_table_without_distance_columns_leaves_those_parts_unmeasured():
    near = row("a1.5", "merge", 1.5, 0.35, 0.05, 0.55)
    found = verdicts([*TRADE_OFF, near])[3]
    assert found.verdict == UNMEASURED and "no near α with an interpolation distance" in found.reason


def test_the_table_has_a_row_per_finding_and_setting_in_setting_order():
    rows = [{**r, "setting": s} for s in ("agentic", "reasoning") for r in TRADE_OFF]
    table = findings_table(pd.DataFrame(rows), cluster_table(rows), NO_ENSEMBLE).splitlines()
    assert table[0] == "| finding | model / setting | verdict | figure | reason |"
    body = [line.split(" | ")[:3] for line in table[2:]]
    assert len(body) == 10
    assert body[:2] == [["| 1. trade-off with a flat solve rate", "tiny / reasoning", "**holds**"],
                        ["| 1. trade-off with a flat solve rate", "tiny / agentic", "**holds**"]]


def test_a_setting_that_evaluates_another_settings_runs_says_so():
    rows = [*TRADE_OFF, *({**r, "setting": "tool_use"} for r in TRADE_OFF)]
    frame = pd.DataFrame(rows).assign(trained_in="reasoning")
    table = findings_table(frame, cluster_table(rows), NO_ENSEMBLE)
    assert "| tiny / tool_use (runs trained in reasoning) |" in table
    assert "| tiny / reasoning |" in table
