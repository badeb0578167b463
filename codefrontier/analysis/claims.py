"""Checking the headline claims on a run's own tables: does this run show a frontier?

For every model × setting with a merge curve (the `all` rows of the frontier table):

- **endpoints differ**: every merge's parents differ (`delta_norm` > 0 in its
  provenance), so RL moved the weights;
- **endpoints separate**: the optimization-failure rate of the low-coverage endpoint
  minus the high-coverage one is at least 5 points, and differs from 0 paired over
  families (analysis/stats.py's rules);
- **interpolation traces the trade-off**: across at least five α in [0, 1] (the
  endpoints are α = 0 and 1), the optimization-failure rate falls as α rises
  (Spearman ρ ≤ −0.8);
- **extrapolation is measured**: α below 0 and above 1 are in the table, and some
  extrapolated α reaches an optimization- or correctness-failure rate outside the
  range of both endpoints; which side continues the trade-off and where it degrades
  is described;
- **in reach**: every checkpoint with α in [0, 1] solves at least 10% of samples
  and has under 25% format errors (the causes of the most frequent format errors are
  named: a tool call the parser could not read, a turn budget run out, no submission);
- **the SFT policy speaks the protocol**: at least 80% of the SFT checkpoint's samples
  are well formed, with no format error (in the multi-turn settings: valid tool calls,
  a submission), the most frequent causes named otherwise;
- **ensembles**: the interpolation + extrapolation pool against the best single
  checkpoint at every budget (gain and its bootstrap interval), and the problems
  only extrapolated checkpoints solve (reported, no threshold);
- **what moves the frontier** (reported, no threshold): each RL run off the α curve
  (shaped rewards, repair training) with its frontier distance and 95% interval, read
  as outside the curve (interval above 0), inside it (below 0), on it (within ±5
  points) or undecided (holding 0 but reaching past ±5 points);
  and, given the second-attempt table, the share of each checkpoint's failures that a
  second attempt corrects, by first failure, and its share solved within two attempts
  against pass@2 of first attempts at the same budget.

The report opens with the paper's five findings, each with a verdict per model ×
setting (analysis/findings.py), then has one section per model × setting (settings in
the settings registry's order): each setting's claims are checked on its own rows, whether it
has its own RL runs and merges or evaluates another setting's (`trained_in`: then the
merges' provenance of that setting says whether the endpoints differ). A claim that does
not hold is reported with its figures, never hidden. Indistinguishable endpoints also raise a warning.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from codefrontier.analysis.comparisons import Comparisons
from codefrontier.analysis.curve import (
    INSIDE,
    ON,
    OUTSIDE,
    UNSETTLED,
    curve_endpoints,
    curve_points,
    curve_side,
    rows_trained_in,
    setting_groups,
)
from codefrontier.analysis.findings import findings_table
from codefrontier.analysis.frontier import FORMAT_CAUSES
from codefrontier.analysis.stats import DIFFERS, MARGIN
from codefrontier.base.layout import MERGE_FOLDER, MERGE_RECORD, model_of, trained_folder
from codefrontier.base.provenance import markdown_with_provenance, read_provenance, record
from codefrontier.judge.verdicts import OUTCOMES

SEPARATION_POINTS = 0.05
MIN_INTERPOLATION_POINTS = 5
MAX_SPEARMAN = -0.8
MIN_CORRECT = 0.10
MAX_FORMAT_ERRORS = 0.25
MIN_SFT_WELL_FORMED = 0.80


@dataclass(frozen=True)
class Claim:
    name: str
    holds: bool | None  # None: could not be checked (missing points)
    detail: str

    def line(self) -> str:
        mark = {True: "holds", False: "DOES NOT HOLD", None: "not checked"}[self.holds]
        return f"- **{self.name}**: {mark}. {self.detail}"


def spearman(x: pd.Series, y: pd.Series) -> float:
    """Rank correlation (Pearson's r of the ranks, ties averaged)."""
    return float(x.rank().corr(y.rank()))


def _rate(row: pd.Series, outcome: str) -> str:
    se = row.get(f"se_{outcome}", math.nan)
    return f"{row[f'rate_{outcome}']:.3f} ± {se:.3f}"


def endpoints_differ(model: str, setting: str, delta_norms: dict) -> Claim:
    norms = {ckpt: norm for (m, s, ckpt), norm in delta_norms.items()
             if (m, s) == (model, setting)}
    if not norms:
        return Claim("endpoints differ", None, "no merge provenance given")
    zero = sorted(ckpt for ckpt, norm in norms.items() if not norm > 0)
    smallest = min(norms.values())
    return Claim("endpoints differ", not zero,
                 f"‖θ_high − θ_low‖ = {smallest:.4g} in the merges' provenance"
                 + (f"; zero for {', '.join(zero)}: RL left both endpoints equal" if zero else ""))


def endpoints_separate(compare: Comparisons, low: pd.Series, high: pd.Series) -> Claim:
    """The low-coverage endpoint's optimization failures exceed the high one's by at
    least SEPARATION_POINTS, a paired difference that differs from 0."""
    change = compare.change(high["checkpoint"], low["checkpoint"], "optimization_failure",
                            f"optimization failures {low['checkpoint']} − {high['checkpoint']}")
    holds = change.outcome == DIFFERS and change.value >= SEPARATION_POINTS
    return Claim("endpoints separate", bool(holds),
                 f"{change.figure()} (paired over {compare.families} families; needs a "
                 f"difference ≥ {100 * SEPARATION_POINTS:.0f} points whose 95% interval "
                 "excludes 0)")


def interpolation_trend(curve: pd.DataFrame) -> Claim:
    inside = curve[(curve["alpha"] >= 0) & (curve["alpha"] <= 1)]
    if len(inside) < MIN_INTERPOLATION_POINTS:
        return Claim("interpolation traces the trade-off", None,
                     f"{len(inside)} α in [0, 1], needs {MIN_INTERPOLATION_POINTS}")
    rho = spearman(inside["alpha"], inside["rate_optimization_failure"])
    series = ", ".join(f"α={a:g}: {r:.3f}" for a, r in
                       zip(inside["alpha"], inside["rate_optimization_failure"], strict=True))
    return Claim("interpolation traces the trade-off", bool(rho <= MAX_SPEARMAN),
                 f"Spearman ρ(α, optimization failures) = {rho:.2f} over {len(inside)} α "
                 f"(needs ≤ {MAX_SPEARMAN}): {series}")


def extrapolation(curve: pd.DataFrame, low: pd.Series, high: pd.Series) -> Claim:
    below, above = curve[curve["alpha"] < 0], curve[curve["alpha"] > 1]
    if below.empty or above.empty:
        return Claim("extrapolation is measured", None, "needs α below 0 and above 1")
    notes, outside = [], False
    for outcome in ("optimization_failure", "correctness_failure"):
        ends = (low[f"rate_{outcome}"], high[f"rate_{outcome}"])
        for _, row in pd.concat([below, above]).iterrows():
            rate = row[f"rate_{outcome}"]
            if rate < min(ends) or rate > max(ends):
                outside = True
                side = "below" if rate < min(ends) else "above"
                notes.append(f"α={row['alpha']:g} {outcome.replace('_', ' ')}s "
                             f"{_rate(row, outcome)}, {side} both endpoints")
    shape = "; ".join(
        f"α={row['alpha']:g}: correct {row['rate_correct']:.3f}, optimization "
        f"{row['rate_optimization_failure']:.3f}, correctness "
        f"{row['rate_correctness_failure']:.3f}, format {row['rate_format_error']:.3f}"
        for _, row in pd.concat([below, above]).iterrows())
    return Claim("extrapolation is measured", outside,
                 ("; ".join(notes) if notes else "every extrapolated rate lies between the "
                  "endpoints'") + f". Extrapolated points: {shape}")


def format_causes(row: pd.Series) -> str:
    """A row's format-error causes with their shares, most frequent first ("" if none);
    a table written before a cause's column has none of it."""
    shares = {c: row.get(f"format_{c}_rate", 0.0) for c in FORMAT_CAUSES}
    found = sorted(((share, c) for c, share in shares.items() if pd.notna(share) and share > 0),
                   reverse=True)
    return ", ".join(f"{cause.replace('_', ' ')} {share:.3f}" for share, cause in found)


def in_reach(curve: pd.DataFrame) -> Claim:
    inside = curve[(curve["alpha"] >= 0) & (curve["alpha"] <= 1)]
    if inside.empty:
        return Claim("in reach of the model", None, "no α in [0, 1]")
    weak = inside[(inside["rate_correct"] < MIN_CORRECT)
                  | (inside["rate_format_error"] >= MAX_FORMAT_ERRORS)]
    most_format = inside.loc[inside["rate_format_error"].idxmax()]
    causes = format_causes(most_format)
    worst = (f"lowest correct {inside['rate_correct'].min():.3f}, highest format errors "
             f"{most_format['rate_format_error']:.3f}"
             + (f" ({most_format['checkpoint']}: {causes})" if causes else ""))
    return Claim("in reach of the model", weak.empty,
                 f"{worst} over α in [0, 1] (needs correct ≥ {MIN_CORRECT:.2f}, format errors "
                 f"< {MAX_FORMAT_ERRORS:.2f})"
                 + (f"; short: {', '.join(weak['checkpoint'])}" if not weak.empty else ""))


def protocol_learned(rows: pd.DataFrame) -> Claim | None:
    """Whether SFT taught the setting's answer format (None without an SFT row)."""
    sft = rows[rows["kind"] == "sft"]
    if sft.empty:
        return None
    row = sft.iloc[0]
    well_formed = 1 - row["rate_format_error"]
    causes = format_causes(row)
    return Claim("the SFT policy speaks the protocol", bool(well_formed >= MIN_SFT_WELL_FORMED),
                 f"{row['checkpoint']}: {well_formed:.3f} of samples well formed (needs ≥ "
                 f"{MIN_SFT_WELL_FORMED:.2f})" + (f"; format errors: {causes}" if causes else ""))


def episode_summary(rows: pd.DataFrame) -> str:
    """For a multi-turn setting, the range of turns and tool calls per sample over its
    checkpoints ("" for single-turn settings and tables without these columns)."""
    if not {"mean_turns", "mean_tool_calls"} <= set(rows) or rows["mean_turns"].isna().all():
        return ""
    turns, calls = rows["mean_turns"].dropna(), rows["mean_tool_calls"].dropna()
    if turns.max() <= 1 and (calls.empty or calls.max() == 0):
        return ""
    return (f"Episodes: {turns.min():.2f}–{turns.max():.2f} model turns and "
            f"{calls.min():.2f}–{calls.max():.2f} tool calls per sample over its "
            f"{len(rows)} checkpoints.\n\n")


def ensemble_summary(ensemble: pd.DataFrame, model: str, setting: str) -> Claim:
    rows = ensemble[(ensemble["model"] == model) & (ensemble["setting"] == setting)]
    pool = rows[rows["pool"] == "interpolation+extrapolation"].sort_values("k")
    only = rows[rows["pool"] == "only-extrapolated"]
    if pool.empty:
        return Claim("ensembles", None, "no interpolation + extrapolation pool")
    gains = "; ".join(
        f"k={int(r['k'])}: {r['pass_at_k']:.3f} vs best single {r['pass_at_k'] - r['gain_over_best']:.3f}"
        f" ({r['gain_over_best']:+.3f}, 95% CI {r['gain_low']:+.3f} to {r['gain_high']:+.3f})"
        for _, r in pool.iterrows() if pd.notna(r["pass_at_k"]))
    solved = list(only["solved"].iloc[0]) if not only.empty else []
    return Claim("ensembles", None,
                 f"interpolation + extrapolation pool vs the best single checkpoint at equal "
                 f"budget: {gains}. Problems only extrapolated checkpoints solve: "
                 f"{len(solved)}" + (f" ({', '.join(solved[:5])}{' …' if len(solved) > 5 else ''})"
                                     if solved else ""))


SIDE_WORDS = {OUTSIDE: "outside the curve", INSIDE: "inside the curve",
              ON: f"on the curve (the interval within ±{MARGIN:g})",
              UNSETTLED: f"undecided (the interval holds 0 and reaches past ±{MARGIN:g})"}


def frontier_side(low: float, high: float) -> str:
    """Where a point lies against the α curve, by its distance's interval, in words."""
    return SIDE_WORDS[curve_side(low, high)]


def off_curve(rows: pd.DataFrame) -> Claim | None:
    """The RL runs that are not on the α curve, by their frontier distance."""
    points = rows[(rows["kind"] == "rl") & rows["alpha"].isna()]
    if points.empty or "frontier_distance" not in points:
        return None
    parts = []
    for _, r in points.iterrows():
        if pd.isna(r["frontier_distance"]):
            parts.append(f"{r['checkpoint']}: no distance (no α curve)")
            continue
        parts.append(
            f"{r['checkpoint']}: correct {r['rate_correct']:.3f}, optimization "
            f"{_rate(r, 'optimization_failure')}, correctness "
            f"{_rate(r, 'correctness_failure')}; distance {r['frontier_distance']:+.3f} "
            f"(95% CI {r['frontier_distance_lo']:+.3f} to {r['frontier_distance_hi']:+.3f}), "
            f"{frontier_side(r['frontier_distance_lo'], r['frontier_distance_hi'])}")
    return Claim("what moves the frontier", None,
                 "signed distance from the α curve, positive beyond it towards fewer failures "
                 "of both kinds: " + "; ".join(parts))


def second_attempt_summary(second_attempts: pd.DataFrame | None, model: str,
                           setting: str) -> Claim | None:
    """Second attempts at evaluation, per checkpoint (results/second_attempts.parquet)."""
    if second_attempts is None:
        return None
    rows = second_attempts[(second_attempts["model"] == model)
                           & (second_attempts["setting"] == setting)]
    if rows.empty:
        return None
    parts = []
    seeds = rows["seed"].nunique() if "seed" in rows else 1
    keys = ["checkpoint", "seed"] if seeds > 1 else ["checkpoint"]
    for key, group in rows.groupby(keys, sort=False):
        checkpoint = f"{key[0]} (seed {key[1]})" if seeds > 1 else key[0]
        by_failure = {r["first_failure"]: r for _, r in group.iterrows()}
        every = by_failure.get("all")
        if every is None:
            continue
        split = ", ".join(
            f"{name.split('_')[0]} {by_failure[name]['corrected_rate']:.3f} of "
            f"{int(by_failure[name]['attempts'])}"
            for name in ("optimization_failure", "correctness_failure") if name in by_failure)
        parts.append(
            f"{checkpoint}: corrected {every['corrected_rate']:.3f} "
            f"± {every['se_corrected_rate']:.3f} of {int(every['attempts'])} failed first "
            f"attempts ({split}); at 2 samples per problem, solved within two attempts "
            f"{every['solved_within_two']:.3f} vs pass@2 of first attempts "
            f"{every['first_pass_at_2']:.3f}")
    return Claim("second attempts at evaluation", None, "; ".join(parts)) if parts else None


def indistinguishable(compare: Comparisons, low: pd.Series, high: pd.Series,
                      delta: Claim) -> bool:
    """The endpoints show no RL effect: equal weights, or no rate shown to differ (paired)."""
    if delta.holds is False:
        return True
    return not any(compare.change(low["checkpoint"], high["checkpoint"], o).outcome == DIFFERS
                   for o in OUTCOMES)


def check(frontier: pd.DataFrame, clusters: pd.DataFrame, ensemble: pd.DataFrame,
          delta_norms: dict[tuple[str, str, str], float],
          second_attempts: pd.DataFrame | None = None) -> tuple[str, list[str]]:
    """The Markdown report, one section per model × setting, and the warnings."""
    sections, warnings = [], []
    for (model, setting), rows in setting_groups(frontier, clusters):
        compare = Comparisons(clusters[(clusters["model"] == model)
                                       & (clusters["setting"] == setting)])
        section, warning = check_setting(model, setting, rows, compare, ensemble, delta_norms,
                                         second_attempts)
        sections.append(section)
        warnings += warning
    header = "# Claims checked on this run\n\n"
    if warnings:
        header += "".join(f"**WARNING** {w}\n\n" for w in warnings)
    header += (f"## The paper's findings on this run\n\n"
               f"{findings_table(frontier, clusters, ensemble)}\n"
               "Verdicts by the rules of `codefrontier.analysis.findings`; the checks below "
               "give the figures per setting.\n\n")
    return header + "\n".join(sections), warnings


def check_setting(model: str, setting: str, rows: pd.DataFrame, compare: Comparisons,
                  ensemble: pd.DataFrame, delta_norms: dict[tuple[str, str, str], float],
                  second_attempts: pd.DataFrame | None = None) -> tuple[str, list[str]]:
    """The section of one model × setting (the `all` rows of its checkpoints) and its
    warnings."""
    seeds = int(rows["seeds"].max()) if "seeds" in rows else 1
    pooled = f" ({seeds} training seeds pooled)" if seeds > 1 else ""
    title = f"## {model} / {setting}{pooled}\n\n{episode_summary(rows)}"
    curve = curve_points(rows)
    endpoints = curve_endpoints(curve)
    if endpoints is None:
        return f"{title}no merge curve: nothing to check\n", []
    low, high = endpoints
    delta = endpoints_differ(model, rows_trained_in(rows, setting), delta_norms)
    claims = [delta, endpoints_separate(compare, low, high), interpolation_trend(curve),
              extrapolation(curve, low, high), in_reach(curve)]
    claims += [c for c in (protocol_learned(rows),) if c]
    claims.append(ensemble_summary(ensemble, model, setting))
    claims += [c for c in (off_curve(rows), second_attempt_summary(second_attempts, model, setting))
               if c]
    warnings = []
    if indistinguishable(compare, low, high, delta):
        warnings.append(f"{model}/{setting}: the RL endpoints {low['checkpoint']} and "
                        f"{high['checkpoint']} are indistinguishable (equal weights, or no "
                        f"rate shown to differ, paired over families): this run shows no "
                        f"frontier")
    return title + "\n".join(c.line() for c in claims) + "\n", warnings


def merge_delta_norms(folders: list[str | os.PathLike]) -> dict[tuple[str, str, str], float]:
    """(model, setting, merge checkpoint) -> ‖θ_high − θ_low‖, from the provenance of
    merged folders or merge records; a seed's run's merge is named <run>/<checkpoint>."""
    norms = {}
    for folder in folders:
        merge = trained_folder(folder)
        if merge is None:
            raise ValueError(f"{folder} is not a merge folder ({MERGE_FOLDER}) or record "
                             f"({MERGE_RECORD})")
        provenance = read_provenance(folder) or {}
        if "delta_norm" not in provenance:
            raise ValueError(f"{folder} has no merge provenance (a record or provenance.json "
                             "with delta_norm)")
        model = model_of(merge["model"])  # a seed's run: its merges named by the run
        label = merge["ckpt"] if merge["model"] == model else f"{merge['model']}/{merge['ckpt']}"
        norms[(model, merge["setting"], label)] = provenance["delta_norm"]
    return norms


def write_claims(frontier: str | os.PathLike, clusters: str | os.PathLike,
                 ensemble: str | os.PathLike, merges: list[str | os.PathLike],
                 second_attempts: str | os.PathLike | None,
                 out: str | os.PathLike) -> tuple[str, list[str]]:
    """The claims report of a run's tables, written to `out` with its provenance; the
    report and its warnings."""
    tables = [frontier, clusters, ensemble, *([second_attempts] if second_attempts else [])]
    report, warnings = check(pd.read_parquet(frontier), pd.read_parquet(clusters),
                             pd.read_parquet(ensemble),
                             merge_delta_norms(merges),
                             pd.read_parquet(second_attempts) if second_attempts else None)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(markdown_with_provenance(report, record([*tables, *merges],
                                                                 kind="claims")))
    return report, warnings
