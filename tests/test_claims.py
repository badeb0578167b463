"""The headline claims, checked on crafted frontier and ensemble tables."""

from pathlib import Path

import pandas as pd
import pytest
from cluster_tables import cluster_table

from codefrontier.analysis.claims import check, merge_delta_norms, spearman, write_claims
from codefrontier.base.provenance import read_provenance


def row(checkpoint, kind, alpha, correct, optimization, correctness, se=0.02):
    rates = {"correct": correct, "optimization_failure": optimization,
             "correctness_failure": correctness,
             "format_error": round(1 - correct - optimization - correctness, 6)}
    return {"model": "tiny", "setting": "reasoning", "checkpoint": checkpoint, "kind": kind,
            "alpha": alpha, "difficulty": "all",
            **{f"rate_{k}": v for k, v in rates.items()}, **{f"se_{k}": se for k in rates}}


FRONTIER = pd.DataFrame([
    row("sft", "sft", None, 0.20, 0.30, 0.45),
    row("a-0.5", "merge", -0.5, 0.05, 0.35, 0.55),
    row("rl-k2", "rl", 0.0, 0.15, 0.40, 0.40),
    row("a0.25", "merge", 0.25, 0.22, 0.30, 0.42),
    row("a0.5", "merge", 0.5, 0.28, 0.22, 0.45),
    row("a0.75", "merge", 0.75, 0.33, 0.14, 0.48),
    row("rl-kinf", "rl", 1.0, 0.38, 0.07, 0.50),
    row("a1.5", "merge", 1.5, 0.25, 0.02, 0.65),
])
ENSEMBLE = pd.DataFrame([
    {"model": "tiny", "setting": "reasoning", "pool": "interpolation+extrapolation",
     "members": ["a-0.5", "a1.5"], "k": 1, "pass_at_k": 0.30, "gain_over_best": -0.08,
     "gain_low": -0.12, "gain_high": -0.04, "solved": [], "solved_beyond_best": []},
    {"model": "tiny", "setting": "reasoning", "pool": "only-extrapolated",
     "members": ["a-0.5", "a1.5"], "k": None, "pass_at_k": None, "gain_over_best": None,
     "gain_low": None, "gain_high": None, "solved": ["bundled/x/eval-0"],
     "solved_beyond_best": []},
])
NORMS = {("tiny", "reasoning", name): 1.5 for name in ("a-0.5", "a0.25", "a0.5", "a0.75", "a1.5")}


def checked(frontier: pd.DataFrame, *args, clusters: pd.DataFrame | None = None):
    """check() with the cluster table of the frontier rows (cluster_tables.py)."""
    if clusters is None:
        clusters = cluster_table(frontier.to_dict("records"))
    return check(frontier, clusters, *args)


def test_a_run_with_a_frontier_passes_every_claim():
    report, warnings = checked(FRONTIER, ENSEMBLE, NORMS)
    assert warnings == []
    assert report.count(": holds.") == 6 and "DOES NOT HOLD" not in report
    assert "**the SFT policy speaks the protocol**: holds. sft: 0.950 of samples well formed" \
        in report
    assert "Spearman ρ(α, optimization failures) = -1.00 over 5 α" in report
    assert "α=1.5 optimization failures 0.020 ± 0.020, below both endpoints" in report
    assert "Problems only extrapolated checkpoints solve: 1" in report


def test_equal_endpoints_are_a_loud_warning():
    dead = FRONTIER.copy()
    for column in [c for c in dead if c.startswith("rate_")]:
        dead[column] = FRONTIER.loc[2, column]  # every checkpoint = rl-k2
    report, warnings = checked(dead, ENSEMBLE, {key: 0.0 for key in NORMS})
    assert len(warnings) == 1 and "indistinguishable" in warnings[0]
    assert report.startswith("# Claims checked on this run\n\n**WARNING**")
    assert "**endpoints differ**: DOES NOT HOLD" in report
    assert "**endpoints separate**: DOES NOT HOLD" in report


def test_separation_needs_both_points_and_a_difference_shown():
    """10 points apart on average, but family by family rl-k2's optimization failures
    are 80% or none: paired over 16 families, the difference's interval holds 0."""
    frontier = FRONTIER.copy()
    high = frontier["checkpoint"] == "rl-kinf"
    frontier.loc[high, ["rate_optimization_failure", "rate_correctness_failure"]] = [0.30, 0.27]
    clusters = cluster_table(frontier.to_dict("records"))
    low = clusters["checkpoint"] == "rl-k2"
    clusters.loc[low, ["n_correct", "n_optimization_failure", "n_correctness_failure",
                       "n_format_error"]] = [[150, 800, 50, 0], [150, 0, 750, 100]] * 8
    report, _ = checked(frontier, ENSEMBLE, NORMS, clusters=clusters)
    line = next(x for x in report.splitlines() if "**endpoints separate**" in x)
    assert "DOES NOT HOLD" in line and ": undecided" in line
    near = FRONTIER.copy()
    near.loc[near["checkpoint"] == "rl-kinf", ["rate_optimization_failure",
                                               "rate_correctness_failure",
                                               "rate_format_error"]] = [0.37, 0.25, 0.0]
    report, _ = checked(near, ENSEMBLE, NORMS)
    assert "**endpoints separate**: DOES NOT HOLD" in report  # 3 points, shown


def test_too_few_alphas_cannot_be_checked():
    report, _ = checked(FRONTIER[~FRONTIER["checkpoint"].isin(["a0.25", "a0.75"])], ENSEMBLE, NORMS)
    assert "**interpolation traces the trade-off**: not checked. 3 α in [0, 1]" in report


def test_spearman_is_the_rank_correlation():
    assert spearman(pd.Series([0, 1, 2, 3]), pd.Series([9, 4, 1, 0])) == -1.0
    assert spearman(pd.Series([0, 1, 2, 3]), pd.Series([1, 3, 2, 4])) == pytest.approx(0.8)


def in_setting(frame: pd.DataFrame, setting: str, **columns) -> pd.DataFrame:
    return frame.assign(setting=setting, **columns)


def test_one_section_per_model_and_setting_in_setting_order():
    frontier = pd.concat([in_setting(FRONTIER, s) for s in ("agentic", "reasoning", "tool_use")])
    ensemble = pd.concat([in_setting(ENSEMBLE, s) for s in ("agentic", "reasoning", "tool_use")])
    norms = {(m, s, c): v for (m, _, c), v in NORMS.items()
             for s in ("agentic", "reasoning", "tool_use")}
    report, warnings = checked(frontier, ensemble, norms)
    headings = [line for line in report.splitlines() if line.startswith("## ")]
    assert headings == ["## The paper's findings on this run", "## tiny / reasoning",
                        "## tiny / tool_use", "## tiny / agentic"]
    assert warnings == [] and report.count(": holds.") == 18


def test_a_setting_is_checked_on_its_own_rows():
    broken = FRONTIER.copy()
    broken["rate_optimization_failure"] = 0.2  # no trade-off in this setting
    broken["rate_correctness_failure"] = (1 - broken["rate_correct"] - 0.2
                                          - broken["rate_format_error"])
    frontier = pd.concat([FRONTIER, in_setting(broken, "agentic")])
    ensemble = pd.concat([ENSEMBLE, in_setting(ENSEMBLE, "agentic")])
    norms = NORMS | {("tiny", "agentic", c): v for (_, _, c), v in NORMS.items()}
    report, warnings = checked(frontier, ensemble, norms)
    reasoning, agentic = report.split("## tiny / ")[1:]
    assert reasoning.startswith("reasoning") and "DOES NOT HOLD" not in reasoning
    assert "**endpoints separate**: DOES NOT HOLD" in agentic
    assert warnings == []  # the other rates still differ: not indistinguishable


def test_a_setting_evaluating_another_settings_runs_uses_their_merges():
    shared = in_setting(FRONTIER, "tool_use").assign(
        trained_in=["reasoning" if kind != "sft" else None for kind in FRONTIER["kind"]])
    frontier = pd.concat([FRONTIER.assign(trained_in="reasoning"), shared])
    ensemble = pd.concat([ENSEMBLE, in_setting(ENSEMBLE, "tool_use")])
    report, warnings = checked(frontier, ensemble, NORMS)  # merges of reasoning only
    tool_use = report.split("## tiny / ")[2]
    assert tool_use.startswith("tool_use") and "‖θ_high − θ_low‖ = 1.5" in tool_use
    assert "DOES NOT HOLD" not in report and warnings == []


def test_multi_turn_sections_name_format_causes_and_episode_lengths():
    agentic = in_setting(FRONTIER, "agentic", mean_turns=3.5, mean_tool_calls=2.5,
                         format_truncated_rate=0.0, format_no_submission_rate=0.0,
                         format_turn_budget_exhausted_rate=0.0)
    agentic.loc[agentic["checkpoint"] == "a0.5", ["rate_format_error", "rate_correctness_failure",
                                                  "format_no_submission_rate",
                                                  "format_turn_budget_exhausted_rate",
                                                  "mean_turns"]] = [0.30, 0.20, 0.20, 0.10, 6.0]
    reasoning = FRONTIER.assign(mean_turns=1.0, mean_tool_calls=0.0)
    report, _ = checked(pd.concat([reasoning, agentic]),
                      pd.concat([ENSEMBLE, in_setting(ENSEMBLE, "agentic")]),
                      NORMS | {("tiny", "agentic", c): v for (_, _, c), v in NORMS.items()})
    reasoning_section, agentic_section = report.split("## tiny / ")[1:]
    assert "Episodes:" not in reasoning_section
    assert "Episodes: 3.50–6.00 model turns and 2.50–2.50 tool calls per sample" in agentic_section
    assert ("highest format errors 0.300 (a0.5: no submission 0.200, turn budget exhausted "
            "0.100)") in agentic_section
    assert "**in reach of the model**: DOES NOT HOLD" in agentic_section
    assert "**the SFT policy speaks the protocol**: holds" in agentic_section


def test_an_sft_policy_that_rarely_answers_in_format_is_reported():
    sloppy = FRONTIER.copy()
    sft = sloppy["checkpoint"] == "sft"
    sloppy.loc[sft, ["rate_correctness_failure", "rate_format_error"]] = [0.25, 0.25]
    sloppy.loc[sft, "format_no_code_block_rate"] = 0.25
    report, _ = checked(sloppy, ENSEMBLE, NORMS)
    assert ("**the SFT policy speaks the protocol**: DOES NOT HOLD. sft: 0.750 of samples well "
            "formed (needs ≥ 0.80); format errors: no code block 0.250") in report


def test_runs_off_the_curve_are_reported_by_their_frontier_distance():
    extra = pd.DataFrame([
        {**row("rl-shaped-disc", "rl", None, 0.30, 0.20, 0.45), "reward": "shaped-disc",
         "frontier_distance": 0.01, "frontier_distance_lo": -0.04, "frontier_distance_hi": 0.04},
        {**row("rl-repair-kinf", "rl", None, 0.45, 0.05, 0.45), "reward": "repair-kinf",
         "frontier_distance": 0.08, "frontier_distance_lo": 0.03, "frontier_distance_hi": 0.12},
        {**row("rl-shaped-cont", "rl", None, 0.10, 0.40, 0.50), "reward": "shaped-cont",
         "frontier_distance": -0.09, "frontier_distance_lo": -0.15, "frontier_distance_hi": -0.02},
        {**row("rl-k3", "rl", None, 0.10, 0.40, 0.50), "reward": "k3",
         "frontier_distance": 0.0, "frontier_distance_lo": -0.09, "frontier_distance_hi": 0.07},
    ])
    report, _ = checked(pd.concat([FRONTIER, extra], ignore_index=True), ENSEMBLE, NORMS)
    line = next(x for x in report.splitlines() if "**what moves the frontier**" in x)
    assert "rl-shaped-disc: correct 0.300" in line
    assert "distance +0.010 (95% CI -0.040 to +0.040), on the curve (the interval within" in line
    assert "(95% CI -0.090 to +0.070), undecided (the interval holds 0 and reaches past" in line
    assert "rl-repair-kinf" in line and "+0.080 (95% CI +0.030 to +0.120), outside the curve" in line
    assert "rl-shaped-cont" in line and "inside the curve" in line
    assert "**what moves the frontier**" not in checked(FRONTIER, ENSEMBLE, NORMS)[0]


def test_corrected_rates_are_reported_per_checkpoint():
    def second_attempt_row(checkpoint, failure, attempts, corrected, with_budget=False):
        return {"model": "tiny", "setting": "reasoning", "checkpoint": checkpoint,
                "first_failure": failure, "attempts": attempts, "corrected": corrected,
                "corrected_rate": corrected / attempts, "se_corrected_rate": 0.05,
                "solved_within_two": 0.40 if with_budget else None,
                "first_pass_at_2": 0.30 if with_budget else None}

    second = pd.DataFrame([second_attempt_row("sft", "optimization_failure", 20, 10),
                           second_attempt_row("sft", "correctness_failure", 80, 8),
                           second_attempt_row("sft", "all", 100, 18, with_budget=True)])
    report, _ = checked(FRONTIER, ENSEMBLE, NORMS, second)
    line = next(x for x in report.splitlines() if "**second attempts at evaluation**" in x)
    assert "sft: corrected 0.180 ± 0.050 of 100 failed first attempts" in line
    assert "(optimization 0.500 of 20, correctness 0.100 of 80)" in line
    assert "solved within two attempts 0.400 vs pass@2 of first attempts 0.300" in line


def test_the_written_report_carries_its_provenance(tmp_path):
    FRONTIER.to_parquet(tmp_path / "frontier.parquet")
    ENSEMBLE.to_parquet(tmp_path / "ensemble.parquet")
    out = tmp_path / "claims" / "claims.md"
    cluster_table(FRONTIER.to_dict("records")).to_parquet(tmp_path / "clusters.parquet")
    report, _ = write_claims(tmp_path / "frontier.parquet", tmp_path / "clusters.parquet",
                             tmp_path / "ensemble.parquet", [], None, out)
    assert out.read_text().startswith(report.rstrip())
    provenance = read_provenance(out)
    assert provenance["kind"] == "claims"
    assert [Path(i["path"]).name for i in provenance["inputs"]] == [
        "frontier.parquet", "clusters.parquet", "ensemble.parquet"]
    (tmp_path / "plain.md").write_text("# no record\n")
    assert read_provenance(tmp_path / "plain.md") is None


def test_a_folder_that_is_no_merge_is_refused(tmp_path):
    with pytest.raises(ValueError, match="is not a merge folder"):
        merge_delta_norms([tmp_path / "results" / "tiny" / "sft"])
