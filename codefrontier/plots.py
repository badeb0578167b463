"""Altair charts of the frontier and ensemble tables, saved as .html and .png (vl-convert)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

OUTCOME_LABELS = {"rate_correct": "correct", "rate_optimization_failure": "optimization failure",
                  "rate_correctness_failure": "correctness failure",
                  "rate_format_error": "format error"}


def frontier_chart(frontier: pd.DataFrame):
    """Correctness- vs optimization-failure rate, one point per checkpoint; merges coloured by α."""
    import altair as alt

    data = frontier[frontier["difficulty"] == "all"].copy()
    data["label"] = data["checkpoint"]
    base = alt.Chart().encode(
        x=alt.X("rate_correctness_failure:Q", title="correctness-failure rate"),
        y=alt.Y("rate_optimization_failure:Q", title="optimization-failure rate"),
        tooltip=["checkpoint", "kind", "alpha", "pass_at_1", "rate_correct",
                 "rate_optimization_failure", "rate_correctness_failure", "rate_format_error"])
    merges = base.transform_filter(alt.datum.kind == "merge")
    path = merges.mark_line(color="lightgray").encode(order="alpha:Q")
    points = merges.mark_circle(size=90).encode(
        color=alt.Color("alpha:Q", scale=alt.Scale(scheme="viridis"), title="α"))
    anchors = base.transform_filter(alt.datum.kind != "merge").mark_point(
        size=160, filled=True, shape="diamond").encode(
        color=alt.Color("kind:N", scale=alt.Scale(domain=["sft", "rl"],
                                                  range=["black", "crimson"]), title="checkpoint"))
    labels = base.transform_filter(alt.datum.kind != "merge").mark_text(
        dx=8, dy=-8, align="left").encode(text="label:N")
    layered = alt.layer(path, points, anchors, labels, data=data).properties(width=320, height=260)
    return layered.facet(column=alt.Column("setting:N"), row=alt.Row("model:N")).resolve_scale(
        color="independent")


def outcome_mix_chart(frontier: pd.DataFrame):
    """The four outcome rates against α for the merged checkpoints."""
    import altair as alt

    data = frontier[(frontier["difficulty"] == "all") & (frontier["kind"] == "merge")]
    long = data.melt(id_vars=["model", "setting", "alpha"], value_vars=list(OUTCOME_LABELS),
                     var_name="outcome", value_name="rate")
    long["outcome"] = long["outcome"].map(OUTCOME_LABELS)
    chart = alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("alpha:Q", title="α (θ = α·θ_high + (1−α)·θ_low)"),
        y=alt.Y("rate:Q", title="share of samples"),
        color=alt.Color("outcome:N", sort=list(OUTCOME_LABELS.values())),
        tooltip=["alpha", "outcome", "rate"]).properties(width=320, height=220)
    return chart.facet(column=alt.Column("setting:N"), row=alt.Row("model:N"))


def pass_at_k_chart(ensemble: pd.DataFrame):
    """pass@k of single checkpoints (thin) and pools (thick) at equal sample budget."""
    import altair as alt

    data = ensemble[ensemble["k"].notna() & ensemble["pass_at_k"].notna()].copy()
    data["single"] = data["pool"].str.startswith("single:")
    data["members"] = data["members"].map(", ".join)
    data = data.drop(columns=["solved", "solved_beyond_best"])
    singles = alt.Chart().transform_filter(alt.datum.single).mark_line(
        opacity=0.35, strokeWidth=1).encode(
        x=alt.X("k:Q", scale=alt.Scale(type="log", base=2), title="samples per problem (k)"),
        y=alt.Y("pass_at_k:Q", title="pass@k"), detail="pool:N", tooltip=["pool", "k", "pass_at_k"])
    pools = alt.Chart().transform_filter(~alt.datum.single).mark_line(
        point=True, strokeWidth=2.5).encode(
        x="k:Q", y="pass_at_k:Q", color=alt.Color("pool:N", title="pool"),
        tooltip=["pool", "k", "pass_at_k", "members"])
    return alt.layer(singles, pools, data=data).properties(width=320, height=240).facet(
        column=alt.Column("setting:N"), row=alt.Row("model:N"))


def save_chart(chart, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".html"), stem.with_suffix(".png")]
    chart.save(str(paths[0]))
    chart.save(str(paths[1]), scale_factor=2)
    return paths


def write_plots(frontier_path: str | os.PathLike, ensemble_path: str | os.PathLike,
                out_dir: str | os.PathLike) -> list[Path]:
    frontier = pd.read_parquet(frontier_path)
    ensemble = pd.read_parquet(ensemble_path)
    out_dir = Path(out_dir)
    written = []
    written += save_chart(frontier_chart(frontier), out_dir / "frontier")
    written += save_chart(outcome_mix_chart(frontier), out_dir / "outcome_mix")
    written += save_chart(pass_at_k_chart(ensemble), out_dir / "pass_at_k")
    return written
