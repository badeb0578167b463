"""Charts of the frontier and ensemble tables: their Vega-Lite specs and what vl-convert renders."""

import re
import struct
from itertools import pairwise

import pandas as pd
import pytest
import vl_convert

from codefrontier.analysis.ensemble import ENSEMBLE_SCHEMA
from codefrontier.analysis.frontier import FORMAT_CAUSES, FRONTIER_SCHEMA
from codefrontier.analysis.plots import (
    CHARTS,
    EXTRAPOLATED,
    INTERPOLATED,
    SHAPED,
    format_cause_shares,
    format_causes_chart,
    frontier_chart,
    outcome_mix_chart,
    pass_at_k_chart,
    write_plots,
)
from codefrontier.base.provenance import read_provenance
from codefrontier.base.tables import write_records
from codefrontier.judge.verdicts import OUTCOMES

SAMPLES = 60  # 15 problems x 4 samples, as in the default run
POOLS = ("best-single", "interpolation", "interpolation+extrapolation", "rl-endpoints")


def frontier_row(checkpoint, correct, optimization, wrong, format_error, se=0.06,
                 difficulty="all", setting="reasoning", causes=None):
    """causes: {cause: share of the format errors}; all of them `truncated` by default."""
    kind = "sft" if checkpoint == "sft" else "rl" if checkpoint.startswith("rl-") else "merge"
    counts = dict(zip(OUTCOMES, (correct, optimization, wrong, format_error), strict=True))
    causes = causes or {"truncated": 1.0}
    row = {"model": "tiny", "setting": setting, "seed": 0, "checkpoint": checkpoint, "kind": kind,
           "reward": {"sft": None, "rl": checkpoint.removeprefix("rl-"), "merge": "k2->kinf"}[kind],
           "alpha": float(checkpoint[1:]) if kind == "merge" else None,
           "difficulty": difficulty, "problems": 15, "samples": SAMPLES,
           **{f"rate_{o}": c / SAMPLES for o, c in counts.items()},
           **{f"se_{o}": se for o in OUTCOMES},
           "pass_at_1": correct / SAMPLES, "mean_completion_tokens": 120.0,
           **{f"format_{c}_rate": causes.get(c, 0.0) * format_error / SAMPLES
              for c in FORMAT_CAUSES},
           "mean_turns": 1.0 if setting == "reasoning" else 3.0,
           "mean_tool_calls": 0.0 if setting == "reasoning" else 2.0,
           "trained_in": None if kind == "sft" else "reasoning",
           "frontier_distance": None, "frontier_distance_lo": None,
           "frontier_distance_hi": None, "interpolation_distance": None,
           "interpolation_distance_lo": None, "interpolation_distance_hi": None}
    assert list(row) == FRONTIER_SCHEMA.names
    return row


def frontier_rows():
    """sft, rl-k2 and a0 coincide (correctness-failure rate 32/60 = 0.533), rl-kinf and a1 too."""
    same = (12, 8, 32, 8)
    return [*[frontier_row(name, *same) for name in ("sft", "rl-k2", "a0")],
            frontier_row("rl-kinf", 14, 3, 35, 8), frontier_row("a1", 14, 3, 35, 8),
            frontier_row("a0.5", 13, 6, 33, 8), frontier_row("a-0.5", 10, 12, 28, 10),
            frontier_row("a1.5", 15, 1, 38, 6),
            frontier_row("a1.5", 5, 1, 10, 44, difficulty="hard")]


def frontier_table():
    return pd.DataFrame(frontier_rows())


def ensemble_row(pool, members, k, value):
    row = {"model": "tiny", "setting": "reasoning", "pool": pool, "members": members, "k": k,
           "pass_at_k": value, "problems": 15, "gain_over_best": 0.0, "gain_low": 0.0,
           "gain_high": 0.0, "solved": ["p1"], "solved_beyond_best": []}
    assert list(row) == ENSEMBLE_SCHEMA.names
    return row


def ensemble_rows():
    """Four pools with one and the same pass@k curve over the budgets 1, 2, 4."""
    members = {"best-single": ["sft"], "interpolation": ["a0", "a0.5", "a1"],
               "interpolation+extrapolation": ["a-0.5", "a0", "a0.5", "a1", "a1.5"],
               "rl-endpoints": ["rl-k2", "rl-kinf"]}
    rows = []
    for k, value in {1: 0.2, 2: 0.3, 4: 0.4}.items():
        rows += [ensemble_row(f"single:{name}", [name], k, value * 0.9)
                 for name in ("sft", "rl-k2", "rl-kinf", "a-0.5", "a0.5", "a1.5")]
        rows += [ensemble_row(pool, members[pool], k, value) for pool in POOLS]
    rows.append(ensemble_row("only-extrapolated", ["a-0.5", "a1.5"], None, None))
    return rows


def ensemble_table():
    return pd.DataFrame(ensemble_rows())


def chart_rows(chart) -> list[dict]:
    (rows,) = chart.to_dict()["datasets"].values()
    return rows


def chart_layers(chart) -> list[dict]:
    return chart.to_dict()["spec"]["layer"]


def axis_labels(chart, title: str) -> list[str]:
    """Tick labels of the axis whose title starts with `title`, as vl-convert renders it."""
    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    groups = re.findall(r'<g class="mark-text role-axis-(label|title)"[^>]*>(.*?)</g>', svg)
    texts = [(role, re.findall(r">([^<]*)</text>", body)) for role, body in groups]
    return next(labels for (role, labels), (_, following) in pairwise(texts)
                if role == "label" and following and following[0].startswith(title))


def test_frontier_ticks_have_decimals_when_every_checkpoint_has_the_same_rate():
    same = pd.DataFrame([frontier_row(name, 12, 8, 32, 8) for name in ("sft", "rl-k2", "a0")])
    labels = axis_labels(frontier_chart(same), "correctness-failure rate")
    ticks = [float(label) for label in labels]
    assert len(ticks) >= 3 and all(re.fullmatch(r"0\.\d\d", label) for label in labels)
    assert min(ticks) < 32 / SAMPLES < max(ticks)


def test_frontier_labels_coinciding_checkpoints_once():
    chart = frontier_chart(frontier_table())
    labels = sorted(row["label"] for row in chart_rows(chart) if row["label"] is not None)
    assert labels == ["a-0.5", "a0.5", "a1.5", "rl-kinf = a1", "sft = rl-k2 = a0"]
    texts = [layer for layer in chart_layers(chart) if layer["mark"]["type"] == "text"]
    assert texts and all(layer["encoding"]["text"]["field"] == "label" for layer in texts)


def label_box(row: dict, x_domain: list, y_domain: list) -> tuple:
    """The pixel box of a row's label in a 340 x 280 plot, at 6.5 px per character."""
    px = (row["label_x"] - x_domain[0]) / (x_domain[1] - x_domain[0]) * 340
    py = (y_domain[1] - row["label_y"]) / (y_domain[1] - y_domain[0]) * 280
    width = 6.5 * len(row["label"])
    left = px if row["label_align"] == "left" else px - width
    return left, py - 7, left + width, py + 7


def test_frontier_labels_of_nearby_points_do_not_overlap():
    chart = frontier_chart(pd.DataFrame([frontier_row("rl-kinf", 14, 1, 38, 7),
                                         frontier_row("a1.5", 15, 1, 37, 7),
                                         frontier_row("sft", 12, 8, 32, 8)]))
    x, y = chart_layers(chart)[0]["encoding"]["x"], chart_layers(chart)[0]["encoding"]["y"]
    first, second = (label_box(row, x["scale"]["domain"], y["scale"]["domain"])
                     for row in chart_rows(chart) if row["checkpoint"] in ("rl-kinf", "a1.5"))
    assert first[2] <= second[0] or second[2] <= first[0] or first[3] <= second[1] \
        or second[3] <= first[1]


def shape_domain(chart):
    return next(layer["encoding"]["shape"]["scale"]["domain"] for layer in chart_layers(chart)
                if "shape" in layer["encoding"])


def test_runs_with_a_shaped_reward_have_their_own_marker():
    plain = frontier_chart(frontier_table())
    assert SHAPED not in shape_domain(plain)  # no legend entry without such a run
    shaped = frontier_chart(pd.DataFrame([*frontier_rows(),
                                          frontier_row("rl-shaped-disc", 13, 5, 34, 8)]))
    marker = {row["checkpoint"]: row["marker"] for row in chart_rows(shaped)}
    assert marker["rl-shaped-disc"] == SHAPED and marker["rl-kinf"] != SHAPED
    assert SHAPED in shape_domain(shaped)


def test_frontier_marks_extrapolated_merges_apart_from_interpolated():
    chart = frontier_chart(frontier_table())
    marker = {row["checkpoint"]: row["marker"] for row in chart_rows(chart)}
    assert marker["a-0.5"] == marker["a1.5"] == EXTRAPOLATED
    assert marker["a0"] == marker["a0.5"] == marker["a1"] == INTERPOLATED
    scales = [layer["encoding"]["shape"]["scale"] for layer in chart_layers(chart)
              if "shape" in layer["encoding"]]
    assert scales and all(scale == scales[0] for scale in scales)
    shapes = dict(zip(scales[0]["domain"], scales[0]["range"], strict=True))
    assert shapes[EXTRAPOLATED] != shapes[INTERPOLATED]


def test_frontier_alpha_curve_runs_from_the_low_to_the_high_endpoint():
    chart = frontier_chart(frontier_table())
    on_curve = sorted((row["curve_alpha"], row["checkpoint"]) for row in chart_rows(chart)
                      if row["curve"] is not None)
    assert on_curve == [(-0.5, "a-0.5"), (0.0, "a0"), (0.0, "rl-k2"), (0.5, "a0.5"),
                        (1.0, "a1"), (1.0, "rl-kinf"), (1.5, "a1.5")]
    (line,) = [layer for layer in chart_layers(chart) if layer["mark"]["type"] == "line"]
    assert line["encoding"]["order"]["field"] == "curve_alpha"


def test_frontier_error_bars_span_one_standard_error_on_both_axes():
    chart = frontier_chart(frontier_table())
    rules = [layer["encoding"] for layer in chart_layers(chart) if layer["mark"]["type"] == "rule"]
    assert {(e["x"]["field"], e["x2"]["field"]) for e in rules if "x2" in e} == {
        ("rate_correctness_failure_low", "rate_correctness_failure_high")}
    assert {(e["y"]["field"], e["y2"]["field"]) for e in rules if "y2" in e} == {
        ("rate_optimization_failure_low", "rate_optimization_failure_high")}
    row = next(row for row in chart_rows(chart) if row["checkpoint"] == "a0.5")
    assert row["rate_correctness_failure_high"] - row["rate_correctness_failure_low"] == \
        pytest.approx(2 * 0.06)


def test_outcome_mix_bands_span_one_standard_error():
    chart = outcome_mix_chart(frontier_table())
    (band,) = [layer["encoding"] for layer in chart_layers(chart) if layer["mark"]["type"] == "area"]
    assert (band["y"]["field"], band["y2"]["field"]) == ("low", "high")
    assert all(row["high"] - row["low"] == pytest.approx(2 * row["se"])
               for row in chart_rows(chart))


def test_identical_pool_curves_have_distinct_dashes_and_shapes():
    layers = chart_layers(pass_at_k_chart(ensemble_table()))
    for channel in ("strokeDash", "shape"):
        (encoding,) = [layer["encoding"][channel] for layer in layers
                       if channel in layer["encoding"]]
        assert encoding["field"] == "pool" and encoding["scale"]["domain"] == list(POOLS)
        assert len({str(value) for value in encoding["scale"]["range"]}) == len(POOLS)


def test_identical_pool_curves_are_named_in_a_note():
    notes = [row["identical"] for row in chart_rows(pass_at_k_chart(ensemble_table()))
             if row["identical"] is not None]
    assert len(notes) == 1
    assert notes[0].replace("\n", " ") == ("identical curves (drawn over each other): "
                                           "best-single = interpolation "
                                           "= interpolation+extrapolation = rl-endpoints")


def test_pass_at_k_ticks_are_the_budgets():
    assert axis_labels(pass_at_k_chart(ensemble_table()), "samples per problem (k)") == \
        ["1", "2", "4"]


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_write_plots_writes_readable_charts(tmp_path):
    write_records(frontier_rows(), tmp_path / "frontier.parquet", schema=FRONTIER_SCHEMA)
    write_records(ensemble_rows(), tmp_path / "ensemble.parquet", schema=ENSEMBLE_SCHEMA)
    written = write_plots(tmp_path / "frontier.parquet", tmp_path / "ensemble.parquet",
                          tmp_path / "plots")
    assert sorted(p.name for p in written) == sorted(
        f"{chart}.{ext}" for chart in ("frontier", "outcome_mix", "pass_at_k", "format_causes")
        for ext in ("html", "png"))
    for png in (p for p in written if p.suffix == ".png"):
        width, height = png_size(png)
        assert width > 800 and height > 500 and png.stat().st_size > 20_000
    assert "sft = rl-k2 = a0" in (tmp_path / "plots" / "frontier.html").read_text()
    provenance = read_provenance(tmp_path / "plots")
    assert provenance["kind"] == "plots" and len(provenance["inputs"]) == 2
    assert sorted(provenance["charts"]) == sorted(p.name for p in written)


SETTINGS = ("reasoning", "tool_use", "agentic")
TOOL_CAUSES = {"malformed_tool_call": 0.5, "turn_budget_exhausted": 0.5}
AGENT_CAUSES = {"truncated": 0.25, "no_submission": 0.75}


def three_setting_rows() -> list[dict]:
    """The same checkpoints in every setting; tool_use and agentic with their own causes.
    Written agentic first, so that an alphabetical order would show."""
    causes = {"reasoning": {"truncated": 1.0}, "tool_use": TOOL_CAUSES, "agentic": AGENT_CAUSES}
    return [dict(row, setting=setting, **{
        f"format_{c}_rate": causes[setting].get(c, 0.0) * row["rate_format_error"]
        for c in FORMAT_CAUSES})
        for setting in reversed(SETTINGS) for row in frontier_rows()]


def three_setting_frontier() -> pd.DataFrame:
    return pd.DataFrame(three_setting_rows())


def three_setting_ensemble_rows() -> list[dict]:
    return [dict(row, setting=setting) for setting in reversed(SETTINGS)
            for row in ensemble_rows()]


def three_setting_ensemble() -> pd.DataFrame:
    return pd.DataFrame(three_setting_ensemble_rows())


@pytest.mark.parametrize("chart", [frontier_chart, outcome_mix_chart, format_causes_chart])
def test_frontier_charts_have_a_column_per_setting_in_setting_order(chart):
    spec = chart(three_setting_frontier()).to_dict()
    assert spec["facet"]["column"] == {"field": "setting", "type": "nominal",
                                       "sort": list(SETTINGS)}
    assert spec["facet"]["row"]["field"] == "model"


def test_pass_at_k_has_a_column_per_setting_and_notes_per_panel():
    chart = pass_at_k_chart(three_setting_ensemble())
    assert chart.to_dict()["facet"]["column"]["sort"] == list(SETTINGS)
    notes = {row["setting"] for row in chart_rows(chart) if row["identical"] is not None}
    assert notes == set(SETTINGS)


def test_each_setting_panel_labels_its_own_points():
    labels = [(row["setting"], row["label"]) for row in chart_rows(
        frontier_chart(three_setting_frontier())) if row["label"] == "sft = rl-k2 = a0"]
    assert sorted(labels) == sorted((s, "sft = rl-k2 = a0") for s in SETTINGS)


def test_format_causes_are_stacked_shares_of_all_samples():
    shares = format_cause_shares(three_setting_frontier())
    a05 = shares[(shares["checkpoint"] == "a0.5") & (shares["setting"] == "agentic")]
    by_cause = dict(zip(a05["cause"], a05["share"], strict=True))
    assert by_cause["no submission"] == pytest.approx(0.75 * 8 / SAMPLES)
    assert by_cause["truncated"] == pytest.approx(0.25 * 8 / SAMPLES)
    assert by_cause["malformed tool call"] == 0.0
    assert sum(by_cause.values()) == pytest.approx(a05["rate_format_error"].iloc[0])
    assert "hard" not in set(shares["checkpoint"])  # the `all` rows only: one bar per checkpoint
    assert len(shares) == 8 * len(SETTINGS) * len(FORMAT_CAUSES)
    assert shares["note"].isna().all()
    first = list(dict.fromkeys(shares["checkpoint"]))
    assert first[:3] == ["sft", "rl-k2", "rl-kinf"] and first[3:] == ["a-0.5", "a0", "a0.5",
                                                                      "a1", "a1.5"]


def test_format_causes_of_a_table_without_the_new_cause_columns():
    old = frontier_table().drop(columns=[f"format_{c}_rate" for c in FORMAT_CAUSES[2:]]
                                + ["mean_turns", "mean_tool_calls"])
    shares = format_cause_shares(old)
    assert set(shares[shares["cause"] == "no submission"]["share"]) == {0.0}
    assert shares[shares["cause"] == "truncated"]["share"].sum() > 0


def test_a_setting_without_format_errors_says_so():
    clean = pd.DataFrame([frontier_row(name, 12, 8, 40, 0) for name in ("sft", "rl-k2")]
                         + [frontier_row(name, 12, 8, 30, 10, setting="agentic",
                                         causes=AGENT_CAUSES) for name in ("sft", "rl-k2")])
    notes = format_cause_shares(clean).dropna(subset=["note"])
    assert list(zip(notes["setting"], notes["note"], strict=True)) == [
        ("reasoning", "no format errors")]
    (text,) = [layer for layer in chart_layers(format_causes_chart(clean))
               if layer["mark"]["type"] == "text"]
    assert text["encoding"]["text"]["field"] == "note"


def test_write_plots_for_three_settings(tmp_path):
    write_records(three_setting_rows(), tmp_path / "frontier.parquet", schema=FRONTIER_SCHEMA)
    write_records(three_setting_ensemble_rows(), tmp_path / "ensemble.parquet",
                  schema=ENSEMBLE_SCHEMA)
    written = write_plots(tmp_path / "frontier.parquet", tmp_path / "ensemble.parquet",
                          tmp_path / "plots")
    assert sorted({p.stem for p in written}) == sorted(CHARTS)
    for png in (p for p in written if p.suffix == ".png"):
        width, height = png_size(png)
        assert width > 2000 and height > 500, png.name  # three panels side by side
    html = (tmp_path / "plots" / "format_causes.html").read_text()
    assert "no submission" in html and "malformed tool call" in html
