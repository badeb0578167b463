"""Altair charts of the frontier and ensemble tables, saved as .html and .png (vl-convert).

Every chart has one panel per model (rows) × setting (columns, in the settings registry's order),
and per training seed where a model has several (a row "tiny · seed 1" each: seed-to-seed
variation in plain view; the ensemble table already pools its seeds);
panels share their axes, so settings compare by position. Error bars and bands are ± 1
problem-clustered standard error (the `se_` columns of the frontier table). Checkpoints at
the same point share one label ("sft = rl-k2 = a0"); curves that coincide keep distinct
dashes and point shapes instead of being moved.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from codefrontier.analysis.frontier import FORMAT_CAUSES
from codefrontier.base.layout import CHARTS, trained_reward
from codefrontier.base.provenance import record, write_provenance
from codefrontier.rewards import reward_family
from codefrontier.settings.registry import setting_order

OUTCOME_LABELS = {"rate_correct": "correct", "rate_optimization_failure": "optimization failure",
                  "rate_correctness_failure": "correctness failure",
                  "rate_format_error": "format error"}
RATE_FORMAT = ".2f"
MIN_RATE_SPAN = 0.1    # an axis spans at least this much, so one value still gets decimal ticks
DASHES = [[1, 0], [8, 4], [2, 3], [12, 3, 2, 3], [5, 5], [1, 5], [10, 2, 2, 2, 2, 2]]
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge"]

SFT, RL, SHAPED, REPAIR = "SFT", "RL endpoint", "RL, shaped reward", "RL, repair training"
INTERPOLATED, EXTRAPOLATED = "merge, 0 ≤ α ≤ 1", "merge, α < 0 or α > 1 (extrapolated)"
MARKERS = {SFT: "square", RL: "diamond", SHAPED: "cross", REPAIR: "triangle-down",
           INTERPOLATED: "circle", EXTRAPOLATED: "triangle-up"}
OPTIONAL_MARKERS = (SHAPED, REPAIR)  # in the legend only when the grid has such runs
# hollow markers' colours
ANCHOR_STROKES = {SFT: "black", RL: "crimson", SHAPED: "darkorange", REPAIR: "royalblue"}
X_RATE, Y_RATE = "rate_correctness_failure", "rate_optimization_failure"
FRONTIER_SIZE = (340, 280)     # plot width and height in pixels
CHAR_PX, LINE_PX = 6.5, 14     # width of a character and height of a line of an 11 px label
# Where a label may go, as (dx, dy) pixels from its point, in order of preference.
LABEL_OFFSETS = [(12, 0), (-12, 0), (10, -14), (10, 14), (-10, -14), (-10, 14),
                 (12, -28), (-12, -28), (12, 28), (-12, 28)]
POINT_PX = 9                   # half the width of the largest marker
CAUSE_LABELS = {c: c.replace("_", " ") for c in FORMAT_CAUSES}
# One colour per format-error cause, the same in every run (Tableau 10's first five).
CAUSE_COLORS = ["#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b"]
BAR_STEP_PX = 24               # width of a checkpoint's bar slot in the format_causes chart
MIN_BARS_WIDTH = 240           # ... and the least width of its panels, which fits the axis title


def facet(chart, data: pd.DataFrame):
    """One panel per model (rows) × setting (columns, in the settings registry's order)."""
    import altair as alt

    settings = setting_order(data["setting"]) if "setting" in data else []
    return chart.facet(column=alt.Column("setting:N", sort=settings),
                       row=alt.Row("model:N"))


def rate_domain(values: pd.Series) -> list[float]:
    """[low, high] around every finite value, padded and at least MIN_RATE_SPAN wide, within
    [0, 1]; a domain left to Vega collapses to one tick (formatted "1") when all values agree."""
    finite = values[values.map(lambda v: v is not None and math.isfinite(v))]
    low, high = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
    pad = max(0.05 * (high - low), (MIN_RATE_SPAN - (high - low)) / 2)
    low, high = low - pad, high + pad
    if low < 0:
        low, high = 0.0, min(1.0, high - low)
    if high > 1:
        low, high = max(0.0, low - (high - 1)), 1.0
    return [round(low, 4), round(high, 4)]


def rate_axis(title: str):
    import altair as alt

    return alt.Axis(title=title, format=RATE_FORMAT, tickCount=6)


def joined_names(names: list[str], width: int = 28) -> str:
    """Names joined by " = ", broken into lines of about `width` characters."""
    lines = [names[0]]
    for name in names[1:]:
        if len(lines[-1]) + len(name) + 3 > width:
            lines.append(f"= {name}")
        else:
            lines[-1] += f" = {name}"
    return "\n".join(lines)


def coinciding_labels(data: pd.DataFrame, keys: list[str], name: str) -> pd.Series:
    """For rows agreeing on `keys`, their `name`s joined by " = " on the first row, None on the
    others: one label per distinct point."""
    joined = data.groupby(keys, dropna=False, sort=False)[name].transform(
        lambda names: joined_names(list(names)))
    first = ~data.duplicated(subset=keys)
    return joined.where(first, None)


def with_standard_errors(frontier: pd.DataFrame) -> pd.DataFrame:
    """The frontier rows with `se_` columns (NaN in tables written before them) and the ± 1 SE
    interval of every rate as `<rate>_low` / `<rate>_high`."""
    data = frontier.copy()
    for rate in OUTCOME_LABELS:
        se = f"se_{rate.removeprefix('rate_')}"
        if se not in data:
            data[se] = float("nan")
        data[f"{rate}_low"] = data[rate] - data[se]
        data[f"{rate}_high"] = data[rate] + data[se]
    return data


def _marker(row: pd.Series) -> str:
    if row["kind"] == "sft":
        return SFT
    if row["kind"] == "rl":
        reward = str(row["reward"])
        run, repair = trained_reward(reward)
        return REPAIR if repair else RL if reward_family(run).nested else SHAPED
    return INTERPOLATED if 0 <= row["alpha"] <= 1 else EXTRAPOLATED


def _checkpoint_order(row: pd.Series) -> tuple:
    """sft, the RL endpoints, then merges by α: the order of names in a shared label."""
    return ({"sft": 0, "rl": 1, "merge": 2}[row["kind"]], row["alpha"] if row["kind"] == "merge"
            else 0.0, row["checkpoint"])


def alpha_curve_positions(data: pd.DataFrame) -> pd.DataFrame:
    """`curve` ("low->high") and `curve_alpha` for the points of each α curve: the merges at
    their α and the RL endpoints named by the merges' reward at α = 0 (low) and 1 (high)."""
    anchors = {}
    for row in data[data["kind"] == "merge"].itertuples():
        if isinstance(row.reward, str) and "->" in row.reward:
            for reward, alpha in zip(row.reward.split("->", 1), (0.0, 1.0), strict=True):
                anchors[(row.model, row.setting, reward)] = (row.reward, alpha)

    def position(row) -> tuple:
        if row.kind == "merge":
            return row.reward, float(row.alpha)
        if row.kind == "rl":
            return anchors.get((row.model, row.setting, row.reward), (None, math.nan))
        return None, math.nan

    return pd.DataFrame([position(row) for row in data.itertuples()], index=data.index,
                        columns=["curve", "curve_alpha"])


def frontier_points(frontier: pd.DataFrame) -> pd.DataFrame:
    """The `difficulty == "all"` rows with what the frontier chart draws: marker, α-curve
    position, ± 1 SE intervals and one combined label per distinct point."""
    data = with_standard_errors(frontier[frontier["difficulty"] == "all"])
    if data.empty:
        return data.assign(marker=[], curve=[], curve_alpha=[], label=[])
    data = data.loc[sorted(data.index, key=lambda i: _checkpoint_order(data.loc[i]))]
    data["marker"] = data.apply(_marker, axis=1)
    data[["curve", "curve_alpha"]] = alpha_curve_positions(data)
    data["label"] = coinciding_labels(data, ["model", "setting", X_RATE, Y_RATE], "checkpoint")
    return data.reset_index(drop=True)


def _label_box(px: float, py: float, dx: float, dy: float, text: str) -> tuple:
    lines = text.split("\n")
    width, height = CHAR_PX * max(map(len, lines)), LINE_PX * len(lines)
    left = px + dx if dx > 0 else px + dx - width
    top = py + dy - LINE_PX / 2
    return left, top, left + width, top + height


def _overlaps(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _label_offset(px: float, py: float, text: str, taken: list[tuple]) -> tuple[float, float]:
    """The first offset whose box stays in the plot and clear of `taken` boxes, else the
    first one that stays in the plot."""
    width, height = FRONTIER_SIZE
    raise_by = LINE_PX * text.count("\n")  # an offset upwards clears every line, not the first
    offsets = [(dx, dy - raise_by if dy < 0 else dy) for dx, dy in LABEL_OFFSETS]
    inside = [(dx, dy) for dx, dy in offsets
              if (box := _label_box(px, py, dx, dy, text))[0] >= 0 and box[1] >= 0
              and box[2] <= width and box[3] <= height] or offsets[:1]
    clear = [(dx, dy) for dx, dy in inside
             if not any(_overlaps(_label_box(px, py, dx, dy, text), box) for box in taken)]
    return (clear or inside)[0]


def place_labels(points: pd.DataFrame, x_domain: list[float], y_domain: list[float]
                 ) -> pd.DataFrame:
    """`label_x`, `label_y` (data units) and `label_align` for the labelled points, chosen so
    that labels avoid each other and the points where they can; only labels move, not data."""
    width, height = FRONTIER_SIZE
    x_per_px = (x_domain[1] - x_domain[0]) / width
    y_per_px = (y_domain[1] - y_domain[0]) / height
    pixels = pd.DataFrame({"px": (points[X_RATE] - x_domain[0]) / x_per_px,
                           "py": (y_domain[1] - points[Y_RATE]) / y_per_px}, index=points.index)
    placed = pd.DataFrame({"label_x": math.nan, "label_y": math.nan, "label_align": None},
                          index=points.index)
    for _, facet in points.groupby(["model", "setting"], sort=False):
        taken = [(px - POINT_PX, py - POINT_PX, px + POINT_PX, py + POINT_PX)
                 for px, py in pixels.loc[facet.index].itertuples(index=False)]
        for index in facet.index[facet["label"].notna()]:
            px, py = pixels.loc[index]
            dx, dy = _label_offset(px, py, facet.at[index, "label"], taken)
            taken.append(_label_box(px, py, dx, dy, facet.at[index, "label"]))
            placed.loc[index] = (points.at[index, X_RATE] + dx * x_per_px,
                                 points.at[index, Y_RATE] - dy * y_per_px,
                                 "left" if dx > 0 else "right")
    return placed


def frontier_chart(frontier: pd.DataFrame):
    """Correctness- vs optimization-failure rate per checkpoint with ± 1 SE bars on both axes;
    the α curve runs through the merges from the low (α = 0) to the high (α = 1) RL endpoint."""
    import altair as alt

    data = frontier_points(frontier)
    x_domain = rate_domain(pd.concat([data[f"{X_RATE}_low"], data[f"{X_RATE}_high"]]))
    y_domain = rate_domain(pd.concat([data[f"{Y_RATE}_low"], data[f"{Y_RATE}_high"]]))
    data[["label_x", "label_y", "label_align"]] = place_labels(data, x_domain, y_domain)
    x_options = {"scale": alt.Scale(domain=x_domain, nice=False, zero=False),
               "axis": rate_axis("correctness-failure rate (± 1 SE)")}
    y_options = {"scale": alt.Scale(domain=y_domain, nice=False, zero=False),
               "axis": rate_axis("optimization-failure rate (± 1 SE)")}
    x, y = alt.X(f"{X_RATE}:Q", **x_options), alt.Y(f"{Y_RATE}:Q", **y_options)
    tooltip = ["checkpoint:N", "kind:N", "reward:N", "alpha:Q", "pass_at_1:Q", "rate_correct:Q",
               f"{X_RATE}:Q", "se_correctness_failure:Q", f"{Y_RATE}:Q",
               "se_optimization_failure:Q", "rate_format_error:Q"]
    if "frontier_distance" in data:  # tables written before the column lack it
        tooltip += ["frontier_distance:Q", "frontier_distance_lo:Q", "frontier_distance_hi:Q"]
    base = alt.Chart().encode(x=x, y=y, tooltip=tooltip)
    has_se = "isValid(datum['{0}']) && isFinite(datum['{0}'])"
    x_bars = base.transform_filter(has_se.format("se_correctness_failure")).mark_rule(
        color="gray", opacity=0.7, clip=True).encode(x=f"{X_RATE}_low:Q", x2=f"{X_RATE}_high:Q")
    y_bars = base.transform_filter(has_se.format("se_optimization_failure")).mark_rule(
        color="gray", opacity=0.7, clip=True).encode(y=f"{Y_RATE}_low:Q", y2=f"{Y_RATE}_high:Q")
    curve = base.transform_filter("isValid(datum.curve)").mark_line(
        color="darkgray", strokeWidth=1.5).encode(detail="curve:N", order="curve_alpha:Q")
    alphas = alpha_axis_values(data["alpha"])
    shown = [m for m in MARKERS if m in set(data["marker"]) or m not in OPTIONAL_MARKERS]
    shape = alt.Shape("marker:N", title="checkpoint", scale=alt.Scale(
        domain=shown, range=[MARKERS[m] for m in shown]))
    merges = base.transform_filter(alt.datum.kind == "merge").mark_point(
        size=90, filled=True, opacity=1).encode(
        shape=shape, color=alt.Color("alpha:Q", title="α", scale=alt.Scale(
            scheme="viridis", **({"domain": [alphas[0], alphas[-1]]} if alphas else {})),
            legend=alt.Legend(gradientLength=120, format=".2~f",
                              **({"values": alphas} if 0 < len(alphas) <= 8 else {}))))
    # Hollow and larger, so a merge at the same point (a0 = rl-low) still shows inside; stroke,
    # not color, which is α's continuous scale.
    anchors = base.transform_filter(alt.datum.kind != "merge").mark_point(
        size=260, filled=False, strokeWidth=2.5).encode(shape=shape, stroke=alt.Stroke(
            "marker:N", legend=None, scale=alt.Scale(domain=list(ANCHOR_STROKES),
                                                     range=list(ANCHOR_STROKES.values()))))
    label_position = {"x": alt.X("label_x:Q", **x_options), "y": alt.Y("label_y:Q", **y_options)}
    labels = [alt.Chart().transform_filter(alt.datum.label_align == align).mark_text(
        align=align, baseline="middle", lineBreak="\n", fontSize=11, **halo).encode(
        text="label:N", **label_position)
        for align in ("left", "right")
        for halo in ({"stroke": "white", "strokeWidth": 4, "strokeOpacity": 0.9}, {})]
    marks = [curve, x_bars, y_bars, merges, anchors] if alphas else [x_bars, y_bars, anchors]
    layered = alt.layer(*marks, *labels, data=data).properties(
        width=FRONTIER_SIZE[0], height=FRONTIER_SIZE[1])
    return facet(layered, data)


def outcome_rates_by_alpha(frontier: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint on an α curve (the merges, and the RL endpoints at α = 0 and
    α = 1) × outcome: rate, se and the ± 1 SE band."""
    data = with_standard_errors(frontier[(frontier["difficulty"] == "all")
                                         & frontier["alpha"].notna()])
    parts = []
    for rate, label in OUTCOME_LABELS.items():
        se = f"se_{rate.removeprefix('rate_')}"
        part = data[["model", "setting", "checkpoint", "alpha"]].copy()
        part["outcome"], part["rate"], part["se"] = label, data[rate], data[se]
        part["low"], part["high"] = data[f"{rate}_low"], data[f"{rate}_high"]
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def alpha_axis_values(alphas: pd.Series) -> list[float]:
    return sorted({float(a) for a in alphas.dropna()})


def outcome_mix_chart(frontier: pd.DataFrame):
    """The four outcome rates against α along the merge curve, with ± 1 SE bands; each
    outcome has its own dash and point shape, so coinciding rates stay visible."""
    import altair as alt

    data = outcome_rates_by_alpha(frontier)
    outcomes = list(OUTCOME_LABELS.values())
    alphas = alpha_axis_values(data["alpha"])
    span = (alphas[-1] - alphas[0]) if alphas else 1.0
    pad = 0.06 * span if span else 0.25
    x = alt.X("alpha:Q", title="α (θ = α·θ_high + (1−α)·θ_low; outside the rules: extrapolated)",
              scale=alt.Scale(domain=[alphas[0] - pad, alphas[-1] + pad] if alphas else [0, 1],
                              nice=False, zero=False),
              axis=alt.Axis(values=alphas, format=".2~f"))
    high = data["high"].where(data["high"].notna(), data["rate"])
    y_scale = alt.Scale(domain=[0, rate_domain(high)[1]], nice=False)
    y = alt.Y("rate:Q", scale=y_scale, axis=rate_axis("share of samples (± 1 SE)"))
    color = alt.Color("outcome:N", sort=outcomes, scale=alt.Scale(domain=outcomes))
    base = alt.Chart().encode(x=x, color=color)
    # fillOpacity, not opacity: the legend, shared with the lines, would take a pale opacity.
    bands = base.transform_filter("isValid(datum.se) && isFinite(datum.se)").mark_area(
        fillOpacity=0.15, clip=True).encode(
        y=alt.Y("low:Q", scale=y_scale, axis=rate_axis("share of samples (± 1 SE)")), y2="high:Q")
    lines = base.mark_line(strokeWidth=2).encode(
        y=y, strokeDash=alt.StrokeDash("outcome:N", sort=outcomes, scale=alt.Scale(
            domain=outcomes, range=DASHES[:len(outcomes)])))
    points = base.mark_point(size=60, filled=False, strokeWidth=1.5).encode(
        y=y, shape=alt.Shape("outcome:N", sort=outcomes, scale=alt.Scale(
            domain=outcomes, range=SHAPES[:len(outcomes)])),
        tooltip=["checkpoint:N", "alpha:Q", "outcome:N", "rate:Q", "se:Q"])
    # α = 0 and α = 1 bound the interpolation; one rule per facet, not one per row.
    bounds = alt.Chart().transform_aggregate(rows="count()").transform_calculate(
        bound="[0, 1]").transform_flatten(["bound"]).mark_rule(
        color="gray", strokeDash=[3, 3]).encode(x="bound:Q")
    layered = alt.layer(bounds, bands, lines, points, data=data).properties(width=340, height=240)
    return facet(layered, data)


def identical_pool_notes(pools: pd.DataFrame) -> pd.Series:
    """On one row per model × setting, the groups of pools whose pass@k agrees at every k
    ("identical curves:" then one "a = b = c" group per line); None elsewhere."""
    curves = pools.groupby(["model", "setting", "pool"])[["k", "pass_at_k"]].apply(
        lambda g: tuple(sorted(zip(g["k"], g["pass_at_k"].round(12), strict=True))))
    groups = curves.reset_index(name="curve").groupby(["model", "setting", "curve"])["pool"].agg(
        sorted)
    note = pd.Series(None, index=pools.index, dtype=object)
    for (model, setting), facet in groups.groupby(level=["model", "setting"]):
        shared = [joined_names(names, width=48) for names in facet if len(names) > 1]
        if shared:
            first = pools[(pools["model"] == model) & (pools["setting"] == setting)].index[0]
            note[first] = "\n".join(["identical curves (drawn over each other):", *shared])
    return note


def budget_scale(ks: list[int]):
    import altair as alt

    low, high = (ks[0], ks[-1]) if ks[0] < ks[-1] else (ks[0] / 1.5, ks[0] * 1.5)
    return alt.Scale(type="log", base=2, domain=[low, high], nice=False)


def pass_at_k_chart(ensemble: pd.DataFrame):
    """pass@k of single checkpoints (thin gray) and pools (coloured, each with its own dash and
    hollow point shape) at equal sample budget; k ticks are the budgets in the table."""
    import altair as alt

    data = ensemble[ensemble["k"].notna() & ensemble["pass_at_k"].notna()].copy()
    data["k"] = data["k"].astype(int)
    data["single"] = data["pool"].str.startswith("single:")
    data["members"] = data["members"].map(", ".join)
    data = data.drop(columns=["solved", "solved_beyond_best"])
    pools_only = data[~data["single"]]
    notes = identical_pool_notes(pools_only) if len(pools_only) else pd.Series(dtype=object)
    data["identical"] = notes.reindex(data.index).astype("string")  # missing: null, not NaN
    ks = sorted(data["k"].unique().tolist()) or [1]
    pools = sorted(pools_only["pool"].unique())
    x = alt.X("k:Q", scale=budget_scale(ks), title="samples per problem (k)",
              axis=alt.Axis(values=ks, format="d"))
    y = alt.Y("pass_at_k:Q", title="pass@k", axis=alt.Axis(format=RATE_FORMAT))
    singles = alt.Chart().transform_filter(alt.datum.single).mark_line(
        color="gray", opacity=0.4, strokeWidth=1).encode(
        x=x, y=y, detail="pool:N", tooltip=["pool:N", "k:Q", "pass_at_k:Q"])
    pool_base = alt.Chart().transform_filter(~alt.datum.single).encode(
        x=x, y=y, color=alt.Color("pool:N", title="pool", scale=alt.Scale(domain=pools)),
        tooltip=["pool:N", "k:Q", "pass_at_k:Q", "members:N"])
    lines = pool_base.mark_line(strokeWidth=2).encode(strokeDash=alt.StrokeDash(
        "pool:N", title="pool", scale=alt.Scale(domain=pools, range=_cycle(DASHES, len(pools)))))
    points = pool_base.mark_point(size=70, filled=False, strokeWidth=1.5).encode(shape=alt.Shape(
        "pool:N", title="pool", scale=alt.Scale(domain=pools, range=_cycle(SHAPES, len(pools)))))
    # In the top-left corner (pixels), the part of a pass@k chart that rising curves leave empty.
    identical = alt.Chart().transform_filter("isValid(datum.identical)").mark_text(
        align="left", baseline="top", lineBreak="\n", fontSize=10, color="dimgray").encode(
        x=alt.value(6), y=alt.value(6), text="identical:N")
    return facet(alt.layer(singles, lines, points, identical, data=data).properties(
        width=340, height=260), data)


def _cycle(values: list, n: int) -> list:
    return [values[i % len(values)] for i in range(n)]


def format_cause_shares(frontier: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint (the `all` rows) × format-error cause: `share` of all samples,
    `order` of the checkpoint in its panel (sft, RL, merges by α) and `note` ("no format
    errors") on one row of each panel that has none. A table written before a cause's column
    counts none of it."""
    data = frontier[frontier["difficulty"] == "all"]
    data = data.loc[sorted(data.index, key=lambda i: _checkpoint_order(data.loc[i]))]
    parts = []
    for index, (cause, label) in enumerate(CAUSE_LABELS.items()):
        part = data[["model", "setting", "checkpoint", "rate_format_error"]].copy()
        column = f"format_{cause}_rate"
        part["share"] = data[column].fillna(0.0) if column in data else 0.0
        part["cause"], part["cause_order"] = label, index
        parts.append(part)
    if not parts or data.empty:
        return pd.DataFrame(columns=["model", "setting", "checkpoint", "rate_format_error",
                                     "share", "cause", "cause_order", "note"])
    shares = pd.concat(parts, ignore_index=True)
    none = shares.groupby(["model", "setting"])["share"].transform("sum") == 0
    first = ~shares.duplicated(subset=["model", "setting"])
    shares["note"] = pd.Series("no format errors", index=shares.index).where(none & first)
    shares["note"] = shares["note"].astype("string")  # missing: null, not NaN
    return shares


def format_causes_chart(frontier: pd.DataFrame):
    """Format errors per checkpoint as bars stacked by cause (shares of all samples), so a
    setting's failures to answer (truncation, a malformed tool call, a turn budget run out,
    no submission) read against its frontier; checkpoints in the order sft, RL, merges by α."""
    import altair as alt

    data = format_cause_shares(frontier)
    order = list(dict.fromkeys(data["checkpoint"]))
    labels = list(CAUSE_LABELS.values())
    totals = data.groupby(["model", "setting", "checkpoint"])["share"].sum()
    y_scale = alt.Scale(domain=[0, rate_domain(pd.concat([totals, pd.Series([0.0])]))[1]],
                        nice=False)
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("checkpoint:N", sort=order, title="checkpoint", axis=alt.Axis(labelAngle=-45)),
        y=alt.Y("share:Q", stack="zero", scale=y_scale,
                axis=rate_axis("format errors, share of samples")),
        color=alt.Color("cause:N", title="format-error cause", sort=labels,
                        scale=alt.Scale(domain=labels, range=CAUSE_COLORS[:len(labels)])),
        order=alt.Order("cause_order:Q"),
        tooltip=["checkpoint:N", "cause:N", alt.Tooltip("share:Q", format=".3f"),
                 alt.Tooltip("rate_format_error:Q", title="all format errors", format=".3f")])
    note = alt.Chart().transform_filter("isValid(datum.note)").mark_text(
        align="left", baseline="top", fontSize=11, color="dimgray").encode(
        x=alt.value(6), y=alt.value(6), text="note:N")
    layered = alt.layer(bars, note, data=data).properties(
        width=max(BAR_STEP_PX * len(order), MIN_BARS_WIDTH), height=220)
    return facet(layered, data)


def save_chart(chart, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".html"), stem.with_suffix(".png")]
    chart.save(str(paths[0]))
    chart.save(str(paths[1]), scale_factor=2)
    return paths


def panels_per_seed(frontier: pd.DataFrame) -> pd.DataFrame:
    """The table with each seed of a model with several seeds as a model of its own,
    "<model> · seed <N>", so that every panel draws one run's curve."""
    if "seed" not in frontier:
        return frontier
    several = frontier.groupby("model")["seed"].transform("nunique") > 1
    named = frontier["model"] + " · seed " + frontier["seed"].astype("string")
    return frontier.assign(model=named.where(several, frontier["model"]))


def write_plots(frontier_path: str | os.PathLike, ensemble_path: str | os.PathLike,
                out_dir: str | os.PathLike) -> list[Path]:
    """Every chart of CHARTS as out_dir/<chart>.html and .png, and the folder's
    provenance.json."""
    frontier = panels_per_seed(pd.read_parquet(frontier_path))
    ensemble = pd.read_parquet(ensemble_path)
    charts = {"frontier": lambda: frontier_chart(frontier),
              "outcome_mix": lambda: outcome_mix_chart(frontier),
              "pass_at_k": lambda: pass_at_k_chart(ensemble),
              "format_causes": lambda: format_causes_chart(frontier)}
    out_dir = Path(out_dir)
    written = [path for name in CHARTS for path in save_chart(charts[name](), out_dir / name)]
    write_provenance(out_dir, record([frontier_path, ensemble_path], kind="plots",
                                     charts=[path.name for path in written]))
    return written
