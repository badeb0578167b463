"""The paper's five findings, each with a verdict per model × setting from a run's own
tables (the `all` rows of the frontier table, and the ensemble table).

Every verdict is one of holds / partial / does not hold / not measured, with the
figures it rests on and a one-line reason. A difference "is" one when it is at least
two standard errors (the rates' problem-clustered SEs, combined as independent); an
interval is the table's 95% bootstrap interval over problems. The rules:

1. **Trade-off with a flat solve rate.** From α = 0 (the low-coverage endpoint) to
   α = 1, optimization failures fall; the paper's trade-off is that correctness
   failures rise as they do while the solve rate stays flat. Does not hold when
   optimization failures do not fall; otherwise holds when correctness failures rise
   and the solve rate does not move, partial when only one of the two.
2. **Interpolation recovers independently trained checkpoints.** Every nested R_k run
   whose k lies between the endpoints' (R_3, R_4 between R_2 and R_inf) is a point
   against the interpolation curve (`interpolation_distance`): recovered when its
   interval does not lie wholly beyond the curve (on it, or the curve does better).
   A run that does not differ from an endpoint in either failure rate tests nothing
   (the curve passes through the endpoints) and is not measured: on the bundled suite
   R_3 and R_4 give R_2's reward to nearly every program, since slow programs pass
   every test under 10^4 bytes. Holds when every measured one is recovered, does not
   hold when none is, partial otherwise; not measured without such runs.
3. **Extrapolation extends the front, stable near the endpoints, degrading far out
   mostly through format errors.** Near: α in [−0.5, 0) or (1, 1.5]; extends when
   some near point reaches beyond the interpolation curve (its
   `interpolation_distance` is above 0). Far: α ≤ −1 or α ≥ 2 (one step of
   θ_high − θ_low beyond an endpoint); degrades through format errors when at the
   farthest point on each side measured the format-error rate rose above its nearest
   endpoint's by more than either failure rate did. Holds when both, partial when
   one (or far points are not measured), does not hold when neither.
4. **Ensembles along the extended front beat the best single checkpoint at equal
   budget.** The interpolation + extrapolation pool at the largest budget measured:
   holds when the interval of its gain over the best single checkpoint lies above 0,
   does not hold when below, partial when it holds 0.
5. **Static shaping stays on the front; failure-conditioned repair moves it
   outward.** Against the α curve (`frontier_distance`): every shaped run (rewards
   that are not nested) on it (its interval holds 0), and the repair-trained run
   beyond it (interval above 0). Holds when both parts do, partial when one, does not
   hold when neither; a part without its runs is not measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from codefrontier.analysis.curve import (
    ON,
    OUTSIDE,
    curve_endpoints,
    curve_points,
    curve_side,
    rows_trained_in,
    setting_groups,
)
from codefrontier.base.layout import CheckpointName, trained_reward
from codefrontier.rewards import reward_family

HOLDS, PARTIAL, FAILS, UNMEASURED = "holds", "partial", "does not hold", "not measured"
STANDARD_ERRORS = 2.0
NEAR = (-0.5, 1.5)   # extrapolation the paper finds stable
FAR = (-1.0, 2.0)    # and where it degrades


@dataclass(frozen=True)
class Finding:
    number: int
    name: str
    verdict: str
    figure: str
    reason: str


TITLES = {1: "trade-off with a flat solve rate",
          2: "interpolation recovers trained R_k",
          3: "extrapolation extends the front",
          4: "ensembles beat the best checkpoint",
          5: "shaping on the front, repair beyond"}


def _change(low: pd.Series, high: pd.Series, rate: str) -> tuple[float, float]:
    """high − low of a rate, and its standard error."""
    return (high[f"rate_{rate}"] - low[f"rate_{rate}"],
            math.hypot(low[f"se_{rate}"], high[f"se_{rate}"]))


def _significant(change: float, se: float) -> bool:
    return abs(change) >= STANDARD_ERRORS * se and change != 0


def _from_parts(parts: list[bool | None]) -> str:
    """A verdict from its parts (None: a part not measured)."""
    measured = [part for part in parts if part is not None]
    if not measured:
        return UNMEASURED
    if all(measured):
        return HOLDS if len(measured) == len(parts) else PARTIAL
    return FAILS if not any(measured) else PARTIAL


DISTANCES = [f"{name}{end}" for name in ("frontier_distance", "interpolation_distance")
             for end in ("", "_lo", "_hi")]


def with_distances(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with every distance column (null where a table written before it lacks
    one: that part of a finding is then not measured)."""
    return rows.reindex(columns=[*rows.columns, *(c for c in DISTANCES if c not in rows)])


def _side(row: pd.Series, column: str) -> str:
    """Where the row lies against the curve its distance `column` is measured from."""
    return curve_side(row[f"{column}_lo"], row[f"{column}_hi"])


def _interval(row: pd.Series, column: str) -> str:
    return f"{row[column]:+.3f} [{row[f'{column}_lo']:+.3f}, {row[f'{column}_hi']:+.3f}]"


def trade_off(low: pd.Series, high: pd.Series) -> Finding:
    changes = {rate: _change(low, high, rate)
               for rate in ("optimization_failure", "correctness_failure", "correct")}
    figure = "; ".join(
        f"{label} {low[f'rate_{rate}']:.3f} → {high[f'rate_{rate}']:.3f} "
        f"({changes[rate][0]:+.3f} ± {changes[rate][1]:.3f})"
        for rate, label in (("correct", "solved"), ("optimization_failure", "optimization"),
                            ("correctness_failure", "correctness")))
    falls = changes["optimization_failure"][0] < 0 and _significant(
        *changes["optimization_failure"])
    if not falls:
        return Finding(1, TITLES[1], FAILS, figure,
                       "optimization failures do not fall from α = 0 to α = 1: no trade-off")
    rises = changes["correctness_failure"][0] > 0 and _significant(
        *changes["correctness_failure"])
    flat = not _significant(*changes["correct"])
    better = "high" if changes["correct"][0] > 0 else "low"
    reason = {(True, True): "correctness failures rise as optimization failures fall; the "
                            "solve rate stays flat",
              (True, False): "correctness failures rise, but the solve rate moves too",
              (False, True): "the solve rate stays flat, but correctness failures do not rise",
              (False, False): f"correctness failures do not rise and the {better}-coverage "
                              f"endpoint solves more: it dominates"}[(rises, flat)]
    return Finding(1, TITLES[1], _from_parts([rises, flat]), figure, reason)


def _nested_k(checkpoint: str) -> float | None:
    """k of a nested R_k run's checkpoint (inf for R_inf); None for other checkpoints."""
    parsed = CheckpointName.parse(checkpoint)
    if parsed.kind != "rl":
        return None
    reward, repair = trained_reward(parsed.reward)
    if repair or not reward_family(reward).nested:
        return None
    return math.inf if reward == "kinf" else float(reward[1:])


def intermediate_runs(rows: pd.DataFrame, low: pd.Series, high: pd.Series) -> Finding:
    bounds = sorted(k for k in (_nested_k(low["checkpoint"]), _nested_k(high["checkpoint"]))
                    if k is not None)
    runs = rows[(rows["kind"] == "rl") & rows["alpha"].isna()]
    between = [r for _, r in runs.iterrows() if len(bounds) == 2
               and (k := _nested_k(r["checkpoint"])) is not None and bounds[0] < k < bounds[1]]
    if not between:
        return Finding(2, TITLES[2], UNMEASURED, "",
                       "no nested R_k run between the endpoints' rewards was trained")
    twins = {r["checkpoint"]: _same_point_as(r, (low, high)) for r in between}
    figure = "; ".join(
        f"{r['checkpoint']} {_interval(r, 'interpolation_distance')}"
        + (f" (= {twins[r['checkpoint']]} within {STANDARD_ERRORS:g} SE)"
           if twins[r["checkpoint"]] else "") for r in between)
    measured = [r for r in between if not twins[r["checkpoint"]]]
    if not measured:
        return Finding(2, TITLES[2], UNMEASURED, figure,
                       "each run's failure rates equal an endpoint's: its reward did not "
                       "differ from that endpoint's on what the policy wrote")
    recovered = [None if pd.isna(r["interpolation_distance_lo"])
                 else _side(r, "interpolation_distance") != OUTSIDE for r in measured]
    verdict = _from_parts(recovered)
    reason = {HOLDS: "each lies on the interpolation curve or inside it",
              FAILS: "each lies beyond the interpolation curve",
              PARTIAL: "some lie beyond the interpolation curve, or have no distance",
              UNMEASURED: "the table has no interpolation distances"}[verdict]
    if len(measured) < len(between):
        reason += "; the others equal an endpoint"
    return Finding(2, TITLES[2], verdict, figure, reason)


def _same_point_as(run: pd.Series, endpoints: tuple[pd.Series, ...]) -> str | None:
    """The endpoint whose optimization- and correctness-failure rates both lie within
    STANDARD_ERRORS of the run's (the first one, in the order given), or None."""
    for endpoint in endpoints:
        if not any(_significant(*_change(endpoint, run, rate))
                   for rate in ("optimization_failure", "correctness_failure")):
            return endpoint["checkpoint"]
    return None


def _farthest(points: pd.DataFrame) -> list[pd.Series]:
    """The farthest measured point on each side of [0, 1]."""
    below, above = points[points["alpha"] < 0], points[points["alpha"] > 1]
    ends = []
    if not below.empty:
        ends.append(below.loc[below["alpha"].idxmin()])
    if not above.empty:
        ends.append(above.loc[above["alpha"].idxmax()])
    return ends


def _degrades_through_format(point: pd.Series, low: pd.Series, high: pd.Series) -> bool:
    nearest = low if point["alpha"] < 0 else high
    rises = {rate: point[f"rate_{rate}"] - nearest[f"rate_{rate}"]
             for rate in ("format_error", "optimization_failure", "correctness_failure")}
    return rises["format_error"] > max(rises["optimization_failure"],
                                       rises["correctness_failure"])


def extrapolation(curve: pd.DataFrame, low: pd.Series, high: pd.Series) -> Finding:
    outside = curve[(curve["alpha"] < 0) | (curve["alpha"] > 1)]
    if outside.empty:
        return Finding(3, TITLES[3], UNMEASURED, "", "no α below 0 or above 1")
    near = outside[(outside["alpha"] >= NEAR[0]) & (outside["alpha"] <= NEAR[1])]
    far = outside[(outside["alpha"] <= FAR[0]) | (outside["alpha"] >= FAR[1])]
    figure = (f"α from {curve['alpha'].min():g} to {curve['alpha'].max():g}; "
              + "; ".join(f"α={r['alpha']:g} beyond interpolation "
                          f"{_interval(r, 'interpolation_distance')}, format errors "
                          f"{r['rate_format_error']:.3f}" for _, r in outside.iterrows()))
    distances = near["interpolation_distance"].dropna()
    extends = bool((distances > 0).any()) if not distances.empty else None
    near_note = {True: "a near α reaches beyond interpolation",
                 False: "no near α reaches beyond interpolation",
                 None: "no near α with an interpolation distance"}[extends]
    if far.empty:
        return Finding(3, TITLES[3], _from_parts([extends, None]), figure,
                       f"{near_note}; nothing at α ≤ {FAR[0]:g} or ≥ {FAR[1]:g} measured")
    through_format = all(_degrades_through_format(p, low, high) for p in _farthest(far))
    far_note = ("far out format errors rise most" if through_format else
                "far out the failures that rise most are not format errors")
    return Finding(3, TITLES[3], _from_parts([extends, through_format]), figure,
                   f"{near_note}; {far_note}")


def ensembles(ensemble: pd.DataFrame, model: str, setting: str) -> Finding:
    pool = ensemble[(ensemble["model"] == model) & (ensemble["setting"] == setting)
                    & (ensemble["pool"] == "interpolation+extrapolation")
                    & ensemble["pass_at_k"].notna()]
    if pool.empty:
        return Finding(4, TITLES[4], UNMEASURED, "", "no interpolation + extrapolation pool")
    row = pool.loc[pool["k"].idxmax()]
    figure = (f"k = {int(row['k'])}: pool {row['pass_at_k']:.3f} vs best single "
              f"{row['pass_at_k'] - row['gain_over_best']:.3f}, gain "
              f"{row['gain_over_best']:+.3f} [{row['gain_low']:+.3f}, {row['gain_high']:+.3f}]")
    if row["gain_low"] > 0:
        return Finding(4, TITLES[4], HOLDS, figure, "the pool solves more at equal budget")
    if row["gain_high"] < 0:
        return Finding(4, TITLES[4], FAILS, figure,
                       "the best single checkpoint solves more at equal budget")
    return Finding(4, TITLES[4], PARTIAL, figure,
                   "the interval holds 0: no difference shown at this budget")


def moving_the_front(rows: pd.DataFrame) -> Finding:
    runs = rows[(rows["kind"] == "rl") & rows["alpha"].isna()
                & rows["frontier_distance"].notna()]
    shaped, repaired = [], []
    for _, r in runs.iterrows():
        reward, repair = trained_reward(CheckpointName.parse(r["checkpoint"]).reward)
        if repair:
            repaired.append(r)
        elif not reward_family(reward).nested:
            shaped.append(r)
    if not shaped and not repaired:
        return Finding(5, TITLES[5], UNMEASURED, "", "no shaped or repair-trained run")
    figure = "; ".join(f"{r['checkpoint']} {_interval(r, 'frontier_distance')}"
                       for r in [*shaped, *repaired])
    on = all(_side(r, "frontier_distance") == ON for r in shaped) if shaped else None
    beyond = all(_side(r, "frontier_distance") == OUTSIDE
                 for r in repaired) if repaired else None
    notes = [{True: "shaping on the curve", False: "shaping off the curve",
              None: "no shaped run"}[on],
             {True: "repair beyond it", False: "repair not beyond it",
              None: "no repair-trained run"}[beyond]]
    return Finding(5, TITLES[5], _from_parts([on, beyond]), figure, "; ".join(notes))


def findings(rows: pd.DataFrame, ensemble: pd.DataFrame, model: str,
             setting: str) -> list[Finding]:
    """The five findings for one model × setting (its `all` rows of the frontier table)."""
    rows = with_distances(rows)
    curve = curve_points(rows)
    endpoints = curve_endpoints(curve)
    if endpoints is None:
        missing = "no RL endpoints at α = 0 and 1"
        return [Finding(n, TITLES[n], UNMEASURED, "", missing) for n in (1, 2, 3)] + \
            [ensembles(ensemble, model, setting), moving_the_front(rows)]
    low, high = endpoints
    return [trade_off(low, high), intermediate_runs(rows, low, high),
            extrapolation(curve, low, high), ensembles(ensemble, model, setting),
            moving_the_front(rows)]


def findings_table(frontier: pd.DataFrame, ensemble: pd.DataFrame) -> str:
    """A Markdown table: finding × (model, setting) → verdict, figure and reason."""
    lines = ["| finding | model / setting | verdict | figure | reason |",
             "|---|---|---|---|---|"]
    groups = setting_groups(frontier)
    found = {(model, setting): findings(rows, ensemble, model, setting)
             for (model, setting), rows in groups}
    where = {(model, setting): setting if (source := rows_trained_in(rows, setting)) == setting
             else f"{setting} (runs trained in {source})" for (model, setting), rows in groups}
    for number in TITLES:
        for (model, setting), items in found.items():
            item = items[number - 1]
            lines.append(f"| {number}. {item.name} | {model} / {where[(model, setting)]} "
                         f"| **{item.verdict}** "
                         f"| {item.figure or '—'} | {item.reason} |")
    return "\n".join(lines) + "\n"
