"""The frontier table as Markdown, one table per model × setting (`codefrontier show`).

Rows are the `all` difficulty rows, in checkpoint order (sft, RL runs, merges by α);
rates carry ± one problem-clustered standard error, the frontier distance its 95%
bootstrap interval.
"""

from __future__ import annotations

import math

import pandas as pd

from codefrontier.settings.registry import setting_order

KIND_ORDER = {"sft": 0, "rl": 1, "merge": 2}
RATES = [("correct", "correct"), ("optimization_failure", "optimization failure"),
         ("correctness_failure", "correctness failure"), ("format_error", "format error")]


def _number(value: float, sign: bool = False) -> str:
    """Three decimals (with the sign when asked); an exact 0 as 0, minus as a minus."""
    if value == 0:
        return "0"
    return f"{value:{'+' if sign else ''}.3f}".replace("-", "−")


def _rate(row: pd.Series, outcome: str) -> str:
    rate, se = row[f"rate_{outcome}"], row.get(f"se_{outcome}", math.nan)
    if rate == 0 or pd.isna(se):
        return _number(rate)
    return f"{_number(rate)} ± {se:.3f}"


def _distance(row: pd.Series) -> str:
    distance = row.get("frontier_distance")
    if distance is None or pd.isna(distance):
        return ""
    low, high = row["frontier_distance_lo"], row["frontier_distance_hi"]
    return f"{_number(distance, True)} [{_number(low, True)}, {_number(high, True)}]"


def checkpoint_order(rows: pd.DataFrame) -> pd.DataFrame:
    """sft, then the RL runs (the α curve's endpoints first), then merges by α."""
    key = rows.apply(lambda r: (KIND_ORDER.get(r["kind"], 3),
                                r["alpha"] if pd.notna(r["alpha"]) else math.inf,
                                r["checkpoint"]), axis=1)
    return rows.iloc[sorted(range(len(rows)), key=lambda i: key.iloc[i])]


def setting_table(rows: pd.DataFrame) -> str:
    """One model × setting's rows as a Markdown table."""
    header = ["checkpoint", "α", *(name for _, name in RATES), "frontier distance"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in checkpoint_order(rows).iterrows():
        alpha = "" if pd.isna(row["alpha"]) else f"{row['alpha']:g}".replace("-", "−")
        cells = [row["checkpoint"], alpha, *(_rate(row, o) for o, _ in RATES), _distance(row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def frontier_markdown(frontier: pd.DataFrame, settings: list[str] | None = None) -> str:
    """Every model × setting of the table (or of `settings`), a heading and a table each."""
    table = frontier[frontier["difficulty"] == "all"]
    sections = []
    for model in sorted(table["model"].unique()):
        of_model = table[table["model"] == model]
        for setting in setting_order(of_model["setting"]):
            if settings and setting not in settings:
                continue
            rows = of_model[of_model["setting"] == setting]
            samples = int(rows["samples"].max())
            sections.append(f"### {model} / {setting} ({int(rows['problems'].max())} problems, "
                            f"up to {samples} samples per checkpoint)\n\n{setting_table(rows)}")
    return "\n\n".join(sections) + "\n"
