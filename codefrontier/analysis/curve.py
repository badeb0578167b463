"""Reading the frontier table: its model × setting groups, each group's α curve and RL
endpoints, and where an interval of a distance from the curve places a point. The
claims and the findings read the table through these."""

from __future__ import annotations

import pandas as pd

from codefrontier.analysis.pooled import pooled_rows
from codefrontier.analysis.stats import MARGIN
from codefrontier.settings.registry import setting_order

OUTSIDE, INSIDE, ON, UNSETTLED = "outside", "inside", "on", "unsettled"


def setting_groups(frontier: pd.DataFrame, clusters: pd.DataFrame | None = None
                   ) -> list[tuple[tuple[str, str], pd.DataFrame]]:
    """The `all` rows of a frontier table per (model, setting): models by name, settings
    in the settings registry's order. With the cluster table, one row per checkpoint,
    pooled over the training seeds (analysis/pooled.py; with one seed, the table's own)."""
    table = frontier[frontier["difficulty"] == "all"]
    order = {s: i for i, s in enumerate(setting_order(table["setting"]))}
    groups = sorted(table.groupby(["model", "setting"]),
                    key=lambda group: (group[0][0], order[group[0][1]]))
    if clusters is None:
        return groups
    return [((model, setting), pooled_rows(rows, clusters[(clusters["model"] == model)
                                                          & (clusters["setting"] == setting)]))
            for (model, setting), rows in groups]


def curve_points(rows: pd.DataFrame) -> pd.DataFrame:
    """The checkpoints on the α curve (merges and the endpoints at 0 and 1), by α."""
    return rows[rows["alpha"].notna()].sort_values("alpha")


def curve_endpoints(curve: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """The RL endpoints of an α curve (α = 0 and 1); None when one is missing."""
    ends = curve[curve["kind"] == "rl"]
    low, high = (ends[ends["alpha"] == a] for a in (0.0, 1.0))
    if low.empty or high.empty:
        return None
    return low.iloc[0], high.iloc[0]


def rows_trained_in(rows: pd.DataFrame, setting: str) -> str:
    """The setting whose runs (and merges) a setting's RL rows come from: its own, unless
    the table's `trained_in` column names another (tables without it: its own)."""
    if "trained_in" not in rows:
        return setting
    sources = rows.loc[rows["kind"] != "sft", "trained_in"].dropna().unique()
    return sources[0] if len(sources) == 1 else setting


def curve_side(low: float, high: float, margin: float = MARGIN) -> str:
    """Where a point lies against a curve, by the 95% interval of its distance from it:
    OUTSIDE (beyond it: the interval above 0), INSIDE (below 0), ON (within ±margin:
    equal shown), or UNSETTLED (it holds 0 but reaches past the margin)."""
    if low > 0:
        return OUTSIDE
    if high < 0:
        return INSIDE
    return ON if -margin < low and high < margin else UNSETTLED
