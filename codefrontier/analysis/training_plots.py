"""Training curves (results/plots/training/<curves>.html and .png): one chart per setting of
its GRPO runs, and one of the SFT runs, from results/training.parquet.

A chart has a panel per figure (loss, reward, the outcome mix, the share of groups without
signal, completion length, KL, learning rate; SFT: loss, token accuracy, entropy,
learning rate), with step on x and one line per run, so that the nested R_k runs lie side
by side in every panel; a run of another seed or model is drawn with its own dash. A
figure no run logged (KL without a KL penalty) has no panel.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from codefrontier.analysis.plots import save_chart
from codefrontier.base.layout import SFT_CURVES, checkpoint_order
from codefrontier.base.provenance import record, write_provenance
from codefrontier.settings.registry import setting_order

# the panels of each chart, in order: column -> title
GRPO_PANELS = {"loss": "loss", "mean_reward": "mean reward",
               "rate_correct": "correct", "rate_optimization_failure": "optimization failure",
               "rate_correctness_failure": "correctness failure",
               "rate_format_error": "format error",
               "no_signal_share": "groups without signal",
               "mean_completion_length": "completion length (tokens)", "kl": "KL",
               "learning_rate": "learning rate"}
SFT_PANELS = {"loss": "loss", "mean_token_accuracy": "token accuracy", "entropy": "entropy",
              "learning_rate": "learning rate"}
PANEL_SIZE = (180, 130)  # width and height of a panel in pixels
PANELS_PER_ROW = 5


def chart_names(training: pd.DataFrame) -> list[str]:
    """The charts of a table: each setting with GRPO runs (in the registry's order), then
    the SFT runs'."""
    settings = setting_order(training.loc[training["kind"] == "rl", "setting"])
    return [*settings, *([SFT_CURVES] if (training["kind"] == "sft").any() else [])]


def run_label(rows: pd.DataFrame) -> pd.Series:
    """<model> · seed <N> where a chart holds several models or seeds, else the model."""
    several = rows[["model", "seed"]].drop_duplicates().shape[0] > 1
    return rows["model"] + " · seed " + rows["seed"].astype("string") if several \
        else rows["model"]


def curves(training: pd.DataFrame, name: str) -> tuple[pd.DataFrame, dict[str, str]]:
    """The long table of one chart (run, checkpoint, step, panel, value) and its panels."""
    panels = SFT_PANELS if name == SFT_CURVES else GRPO_PANELS
    rows = training[training["kind"] == "sft"] if name == SFT_CURVES \
        else training[(training["kind"] == "rl") & (training["setting"] == name)]
    rows = rows.assign(run=run_label(rows))
    long = rows.melt(id_vars=["run", "checkpoint", "step"], value_vars=list(panels),
                     var_name="figure", value_name="value").dropna(subset=["value"])
    shown = {column: title for column, title in panels.items()
             if column in set(long["figure"])}
    return long.assign(panel=long["figure"].map(shown)), shown


def training_chart(training: pd.DataFrame, name: str):
    """One chart: a panel per figure, one line per run."""
    import altair as alt

    long, panels = curves(training, name)
    if long.empty:
        return alt.Chart(pd.DataFrame({"note": [f"{name}: no steps logged"]})).mark_text(
            size=13).encode(text="note:N").properties(title=f"training: {name}")
    order = sorted(long["checkpoint"].unique(), key=checkpoint_order)
    runs = {"strokeDash": alt.StrokeDash("run:N", title="model")} \
        if long["run"].nunique() > 1 else {}
    lines = alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("step:Q", title="step", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("value:Q", title=None),
        color=alt.Color("checkpoint:N", sort=order, title="run"),
        detail="run:N", **runs,
        tooltip=["run:N", "checkpoint:N", "step:Q", "panel:N",
                 alt.Tooltip("value:Q", format=".4g")],
    ).properties(width=PANEL_SIZE[0], height=PANEL_SIZE[1])
    return lines.facet(facet=alt.Facet("panel:N", sort=list(panels.values()), title=None),
                       columns=PANELS_PER_ROW).resolve_scale(y="independent").resolve_axis(
        x="independent").properties(title=f"training: {name}")


def write_training_plots(training_path: str | os.PathLike, out_dir: str | os.PathLike,
                         names: list[str] | None = None) -> list[Path]:
    """out_dir/<name>.html and .png for each chart (`names`, default the table's:
    chart_names), and the folder's provenance.json."""
    training = pd.read_parquet(training_path)
    out_dir = Path(out_dir)
    written = [path for name in (names if names is not None else chart_names(training))
               for path in save_chart(training_chart(training, name), out_dir / name)]
    write_provenance(out_dir, record([training_path], kind="training_plots",
                                     charts=[path.name for path in written]))
    return written
