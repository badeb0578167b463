"""The paper's five findings, each with a verdict per model × setting from a run's own
tables: the `all` rows of the frontier table, the cluster table and the ensemble table.

Every verdict is one of holds / partial / does not hold / undecided / not measured, with
the figures it rests on and a one-line reason. Each part of a finding rests on a
comparison decided by the three rules of analysis/stats.py (fixed before any result
was looked at): it differs (the 95% interval excludes 0), is equal (the 90% interval
lies within ±5 points) or is undecided. Rates of two checkpoints are compared paired,
family by family (analysis/comparisons.py); a point against a curve by the 95%
bootstrap interval of its distance, resampled over families. "Flat", "equals" and "on"
need equal to be shown: a difference that is merely not shown decides nothing. A
finding whose verdict depends on how an undecided comparison falls is **undecided**,
with the comparison's figure and the number of families that would decide it at 80%
power. The rules:

1. **Trade-off with a flat solve rate.** From α = 0 (the low-coverage endpoint) to
   α = 1, optimization failures fall (differ, below 0); the paper's trade-off is that
   correctness failures rise (differ, above 0) while the solve rate stays flat (equal).
   Does not hold when optimization failures do not fall; otherwise holds when both,
   partial when one of the two.
2. **Interpolation recovers independently trained checkpoints.** Every nested R_k run
   whose k lies between the endpoints' (R_3, R_4 between R_2 and R_inf) is a point
   against the interpolation curve (`interpolation_distance`): recovered when it is
   not beyond the curve (its interval lies below +5 points), not recovered when it is
   (interval above 0). A run equal to an endpoint in both failure rates tests nothing
   (the curve passes through the endpoints) and is not measured. Holds when every
   measured one is recovered, does not hold when none is, partial otherwise; not
   measured without such runs.
3. **Extrapolation extends the front, stable near the endpoints, degrading far out
   mostly through format errors.** Near: α in [−0.5, 0) or (1, 1.5]; extends when some
   near point lies beyond the interpolation curve (interval above 0), does not when
   every near point lies short of +5 points. Far: α ≤ −1 or α ≥ 2 (one step of
   θ_high − θ_low beyond an endpoint); degrades through format errors when at the
   farthest point on each side the format-error rate rose over its nearest endpoint's
   by more than each failure rate did (paired contrasts that differ above 0). Holds
   when both, partial when one (or far points are not measured), does not hold when
   neither.
4. **Ensembles along the extended front beat the best single checkpoint at equal
   budget.** The interpolation + extrapolation pool at the largest budget measured:
   holds when the interval of its gain over the best single checkpoint (chosen inside
   each bootstrap draw) lies above 0, does not hold when it lies below +5 points.
5. **Static shaping stays on the front; failure-conditioned repair moves it
   outward.** Against the α curve (`frontier_distance`): every shaped run (rewards
   that are not nested) on it (interval within ±5 points), and the repair-trained run
   beyond it (interval above 0). Holds when both parts do, partial when one, does not
   hold when neither; a part without its runs is not measured.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pandas as pd

from codefrontier.analysis.comparisons import (
    Compared,
    Comparisons,
    Placed,
    beyond,
    decided_by,
    interval_of,
    on,
)
from codefrontier.analysis.curve import (
    curve_endpoints,
    curve_points,
    rows_trained_in,
    setting_groups,
)
from codefrontier.analysis.stats import MARGIN, UNDECIDED
from codefrontier.base.layout import CheckpointName, trained_reward
from codefrontier.rewards import reward_family

HOLDS, PARTIAL, FAILS, UNMEASURED = "holds", "partial", "does not hold", "not measured"
VERDICTS = (HOLDS, PARTIAL, FAILS, UNDECIDED, UNMEASURED)
NEAR = (-0.5, 1.5)   # extrapolation the paper finds stable
FAR = (-1.0, 2.0)    # and where it degrades
DROPPED = "dropped"  # a part that tests nothing (an R_k run equal to an endpoint)


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


def could_be(shown: bool | None) -> set:
    """What a part may be: what a comparison showed, or either way when it is undecided."""
    return {True, False} if shown is None else {shown}


def all_of(values: Iterable[bool | None]) -> bool | None:
    """Three-valued AND: False when one is False, True when all are True, else None."""
    values = list(values)
    if False in values:
        return False
    return True if all(v is True for v in values) else None


def any_of(values: Iterable[bool | None]) -> bool | None:
    """Three-valued OR: True when one is True, False when all are False, else None."""
    values = list(values)
    if True in values:
        return True
    return False if all(v is False for v in values) else None


def over_undecided(options: list[set], rule: Callable[[list], str]) -> str:
    """The verdict `rule` gives whichever way each part's options fall, or UNDECIDED when
    that depends on how an undecided comparison falls."""
    verdicts = {rule(list(chosen)) for chosen in itertools.product(*options)}
    return verdicts.pop() if len(verdicts) == 1 else UNDECIDED


def from_parts(parts: list) -> str:
    """A verdict from decided parts (True, False, or None: not measured)."""
    measured = [part for part in parts if part is not None]
    if not measured:
        return UNMEASURED
    if all(measured):
        return HOLDS if len(measured) == len(parts) else PARTIAL
    return FAILS if not any(measured) else PARTIAL


def from_measured(parts: list) -> str:
    """A verdict over the parts that test something (DROPPED ones left out)."""
    measured = [part for part in parts if part is not DROPPED]
    return from_parts(measured) if measured else UNMEASURED


DISTANCES = [f"{name}{end}" for name in ("frontier_distance", "interpolation_distance")
             for end in ("", "_lo", "_hi")]


def with_distances(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with every distance column (null where a table written before it lacks
    one: that part of a finding is then not measured)."""
    return rows.reindex(columns=[*rows.columns, *(c for c in DISTANCES if c not in rows)])


def trade_off(compare: Comparisons, low: str, high: str) -> Finding:
    solved, optimization, correctness = (
        compare.change(low, high, rate, label) for rate, label in
        (("correct", "solved"), ("optimization_failure", "optimization failures"),
         ("correctness_failure", "correctness failures")))
    figure = "; ".join(c.figure() for c in (solved, optimization, correctness))
    falls = optimization.negative()
    if falls is None:
        return Finding(1, TITLES[1], UNDECIDED, figure,
                       "whether optimization failures fall from α = 0 to α = 1 is "
                       f"undecided: {decided_by(optimization.needed)}")
    if not falls:
        return Finding(1, TITLES[1], FAILS, figure,
                       "optimization failures do not fall from α = 0 to α = 1: no trade-off")
    rises = correctness.positive()
    flat = flat_rate(solved)
    verdict = over_undecided([could_be(rises), could_be(flat)], from_parts)
    return Finding(1, TITLES[1], verdict, figure, trade_off_reason(rises, flat, solved,
                                                                   correctness))


def flat_rate(change: Compared) -> bool | None:
    """A rate is flat when equal within the margin is shown, not when it is merely not
    shown to move."""
    if change.decision.equal:
        return True
    return False if change.decision.differs else None


def trade_off_reason(rises: bool | None, flat: bool | None, solved: Compared,
                     correctness: Compared) -> str:
    if rises is False and flat is False:
        better = "high" if solved.value > 0 else "low"
        return (f"correctness failures do not rise and the {better}-coverage endpoint "
                "solves more: it dominates")
    rise = {True: "correctness failures rise as optimization failures fall",
            False: "correctness failures do not rise",
            None: "whether correctness failures rise is undecided "
                  f"({decided_by(correctness.needed)})"}[rises]
    stays = {True: f"the solve rate stays flat (equal within ±{MARGIN:g})",
             False: "the solve rate moves",
             None: f"whether the solve rate stays flat is undecided "
                   f"({decided_by(solved.needed)})"}[flat]
    return f"{rise}; {stays}"


def _nested_k(checkpoint: str) -> float | None:
    """k of a nested R_k run's checkpoint (inf for R_inf); None for other checkpoints."""
    parsed = CheckpointName.parse(checkpoint)
    if parsed.kind != "rl":
        return None
    reward, repair = trained_reward(parsed.reward)
    if repair or not reward_family(reward).nested:
        return None
    return math.inf if reward == "kinf" else float(reward[1:])


FAILURES = ("optimization_failure", "correctness_failure")


def equals_endpoint(compare: Comparisons, run: str, endpoint: str) -> bool | None:
    """Whether a run's failure rates both equal an endpoint's (shown within the margin):
    True, False (one of them differs beyond it) or None (undecided)."""
    return all_of(flat_rate(compare.change(endpoint, run, rate)) for rate in FAILURES)


def intermediate_runs(compare: Comparisons, rows: pd.DataFrame, low: str,
                      high: str) -> Finding:
    bounds = sorted(k for k in (_nested_k(low), _nested_k(high)) if k is not None)
    runs = rows[(rows["kind"] == "rl") & rows["alpha"].isna()]
    between = [r for _, r in runs.iterrows() if len(bounds) == 2
               and (k := _nested_k(r["checkpoint"])) is not None and bounds[0] < k < bounds[1]]
    if not between:
        return Finding(2, TITLES[2], UNMEASURED, "",
                       "no nested R_k run between the endpoints' rewards was trained")
    options, figures = [], []
    for run in between:
        twin = any_of(equals_endpoint(compare, run["checkpoint"], end) for end in (low, high))
        placed = None if pd.isna(run["interpolation_distance_lo"]) else beyond(
            *interval_of(run, "interpolation_distance"), compare.families)
        recovered = {None} if placed is None else {not shown for shown in could_be(placed.shows)}
        options.append({DROPPED} if twin else recovered if twin is False
                       else {DROPPED, *recovered})
        figures.append(_run_figure(run["checkpoint"], twin, placed))
    verdict = over_undecided(options, from_measured)
    reason = {HOLDS: "each run that differs from the endpoints lies on the interpolation "
                     "curve or inside it",
              FAILS: "each run that differs from the endpoints lies beyond the "
                     "interpolation curve",
              PARTIAL: "some lie beyond the interpolation curve, or have no distance",
              UNMEASURED: "each run's failure rates equal an endpoint's (within the "
                          "margin): its reward did not differ from that endpoint's on "
                          "what the policy wrote",
              UNDECIDED: "whether each run equals an endpoint or lies beyond the curve "
                         "is undecided for some"}[verdict]
    return Finding(2, TITLES[2], verdict, "; ".join(figures), reason)


def _run_figure(name: str, twin: bool | None, placed: Placed | None) -> str:
    equal = {True: "equals an endpoint", False: "differs from both endpoints",
             None: "equal to an endpoint or not: undecided"}[twin]
    where = placed.figure() if placed is not None else f"{name} no distance"
    return f"{where} ({equal})"


def _farthest(points: pd.DataFrame) -> list[pd.Series]:
    """The farthest measured point on each side of [0, 1]."""
    below, above = points[points["alpha"] < 0], points[points["alpha"] > 1]
    ends = []
    if not below.empty:
        ends.append(below.loc[below["alpha"].idxmin()])
    if not above.empty:
        ends.append(above.loc[above["alpha"].idxmax()])
    return ends


def format_rises_most(compare: Comparisons, point: str, nearest: str) -> list[Compared]:
    """The format-error rate's rise from the nearest endpoint to the point, less each
    failure rate's rise: two paired contrasts."""
    return [compare.contrast([(1.0, point, "format_error"), (-1.0, nearest, "format_error"),
                              (-1.0, point, rate), (1.0, nearest, rate)],
                             f"{point}: format-error rise over {rate.replace('_', ' ')} rise")
            for rate in FAILURES]


def extrapolation(compare: Comparisons, curve: pd.DataFrame, low: str, high: str) -> Finding:
    outside = curve[(curve["alpha"] < 0) | (curve["alpha"] > 1)]
    if outside.empty:
        return Finding(3, TITLES[3], UNMEASURED, "", "no α below 0 or above 1")
    near = outside[(outside["alpha"] >= NEAR[0]) & (outside["alpha"] <= NEAR[1])
                   & outside["interpolation_distance_lo"].notna()]
    far = outside[(outside["alpha"] <= FAR[0]) | (outside["alpha"] >= FAR[1])]
    placed = [beyond(*interval_of(r, "interpolation_distance"), compare.families)
              for _, r in near.iterrows()]
    extends = any_of(p.shows for p in placed) if placed else None
    figures = [f"α from {curve['alpha'].min():g} to {curve['alpha'].max():g}",
               *(f"near, against interpolation: {p.figure()}" for p in placed)]
    near_note = {True: "a near α reaches beyond interpolation",
                 False: "no near α reaches beyond interpolation",
                 None: "whether a near α reaches beyond interpolation is undecided"}[extends]
    if not placed:
        near_note = "no near α with an interpolation distance"
    if far.empty:
        verdict = over_undecided([{None} if not placed else could_be(extends), {None}],
                                 from_parts)
        return Finding(3, TITLES[3], verdict, "; ".join(figures),
                       f"{near_note}; nothing at α ≤ {FAR[0]:g} or ≥ {FAR[1]:g} measured")
    contrasts = [c for point in _farthest(far)
                 for c in format_rises_most(compare, point["checkpoint"],
                                            low if point["alpha"] < 0 else high)]
    through_format = all_of(c.positive() for c in contrasts)
    figures += [f"far: {c.figure()}" for c in contrasts]
    far_note = {True: "far out format errors rise most",
                False: "far out the failures that rise most are not format errors",
                None: "whether format errors rise most far out is undecided"}[through_format]
    verdict = over_undecided([{None} if not placed else could_be(extends),
                              could_be(through_format)], from_parts)
    return Finding(3, TITLES[3], verdict, "; ".join(figures), f"{near_note}; {far_note}")


def ensembles(ensemble: pd.DataFrame, model: str, setting: str, families: int) -> Finding:
    pool = ensemble[(ensemble["model"] == model) & (ensemble["setting"] == setting)
                    & (ensemble["pool"] == "interpolation+extrapolation")
                    & ensemble["pass_at_k"].notna()]
    if pool.empty:
        return Finding(4, TITLES[4], UNMEASURED, "", "no interpolation + extrapolation pool")
    row = pool.loc[pool["k"].idxmax()]
    gain = beyond("gain", row["gain_over_best"], row["gain_low"], row["gain_high"], families,
                  question="above 0")
    figure = (f"k = {int(row['k'])}: pool {row['pass_at_k']:.3f} vs best single "
              f"{row['pass_at_k'] - row['gain_over_best']:.3f}, {gain.figure()}")
    if gain.shows is None:
        return Finding(4, TITLES[4], UNDECIDED, figure,
                       "the interval holds 0 and reaches past the margin: no difference "
                       "shown either way at this budget")
    if gain.shows:
        return Finding(4, TITLES[4], HOLDS, figure, "the pool solves more at equal budget")
    return Finding(4, TITLES[4], FAILS, figure,
                   f"the pool solves no more than {MARGIN:g} over the best single "
                   "checkpoint at equal budget")


def moving_the_front(rows: pd.DataFrame, families: int) -> Finding:
    runs = rows[(rows["kind"] == "rl") & rows["alpha"].isna()
                & rows["frontier_distance"].notna()]
    shaped, repaired = [], []
    for _, r in runs.iterrows():
        reward, repair = trained_reward(CheckpointName.parse(r["checkpoint"]).reward)
        if repair:
            repaired.append(beyond(*interval_of(r, "frontier_distance"), families))
        elif not reward_family(reward).nested:
            shaped.append(on(*interval_of(r, "frontier_distance"), families))
    if not shaped and not repaired:
        return Finding(5, TITLES[5], UNMEASURED, "", "no shaped or repair-trained run")
    figure = "; ".join(p.figure() for p in [*shaped, *repaired])
    stays = all_of(p.shows for p in shaped) if shaped else None
    moves = all_of(p.shows for p in repaired) if repaired else None
    notes = [{True: "shaping on the curve", False: "shaping off the curve",
              None: "whether shaping stays on the curve is undecided"}[stays]
             if shaped else "no shaped run",
             {True: "repair beyond it", False: "repair not beyond it",
              None: "whether repair moves beyond it is undecided"}[moves]
             if repaired else "no repair-trained run"]
    options = [could_be(stays) if shaped else {None}, could_be(moves) if repaired else {None}]
    return Finding(5, TITLES[5], over_undecided(options, from_parts), figure, "; ".join(notes))


def findings(rows: pd.DataFrame, clusters: pd.DataFrame, ensemble: pd.DataFrame, model: str,
             setting: str) -> list[Finding]:
    """The five findings for one model × setting: its `all` rows of the frontier table
    and its rows of the cluster table."""
    rows = with_distances(rows)
    compare = Comparisons(clusters[(clusters["model"] == model)
                                   & (clusters["setting"] == setting)])
    curve = curve_points(rows)
    endpoints = curve_endpoints(curve)
    later = [ensembles(ensemble, model, setting, compare.families),
             moving_the_front(rows, compare.families)]
    if endpoints is None:
        missing = "no RL endpoints at α = 0 and 1"
        return [Finding(n, TITLES[n], UNMEASURED, "", missing) for n in (1, 2, 3)] + later
    low, high = (end["checkpoint"] for end in endpoints)
    return [trade_off(compare, low, high), intermediate_runs(compare, rows, low, high),
            extrapolation(compare, curve, low, high), *later]


def findings_table(frontier: pd.DataFrame, clusters: pd.DataFrame,
                   ensemble: pd.DataFrame) -> str:
    """A Markdown table: finding × (model, setting) → verdict, figure and reason."""
    lines = ["| finding | model / setting | verdict | figure | reason |",
             "|---|---|---|---|---|"]
    groups = setting_groups(frontier, clusters)
    found = {(model, setting): findings(rows, clusters, ensemble, model, setting)
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
