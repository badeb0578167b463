"""The comparisons the findings and the claims decide, each one by the three rules of
analysis/stats.py (differs, equal within ±MARGIN, undecided).

- Two checkpoints' rates of an outcome (`Comparisons.change`), and contrasts of several
  rates (`Comparisons.contrast`): paired over the cluster table's cells (one value per
  family and seed), family-clustered, seeds in the model.
- A point against a curve, from the 95% bootstrap interval of its distance in the
  frontier table (`beyond`, `on`): only an interval within ±MARGIN shows a point on a
  curve; one that holds 0 and reaches past the margin decides nothing.

Every undecided comparison carries the number of families that would decide it at 80%
power (stats.clusters_to_decide): from the observed variance components for the paired
ones, from the SE the interval's width implies (width / 3.92) for the bootstrapped ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from scipy import stats

from codefrontier.analysis.clusters import rate_cells
from codefrontier.analysis.curve import ON, UNSETTLED, curve_side
from codefrontier.analysis.stats import (
    DIFFERS,
    LEVEL,
    MARGIN,
    UNDECIDED,
    ClustersNeeded,
    Decision,
    Estimate,
    VarianceComponents,
    clusters_to_decide,
    decide,
    estimate_mean,
)


@dataclass(frozen=True)
class Compared:
    """A decided comparison: what was compared, the decision and, when it is undecided,
    the families that would decide it."""

    what: str
    decision: Decision
    needed: ClustersNeeded | None = None

    @property
    def outcome(self) -> str:
        return self.decision.outcome

    @property
    def value(self) -> float:
        return self.decision.estimate.value

    def positive(self) -> bool | None:
        """True when it differs above 0, False when it differs below 0 or is equal to 0
        within the margin, None when undecided."""
        if self.outcome == UNDECIDED:
            return None
        return self.outcome == DIFFERS and self.value > 0

    def negative(self) -> bool | None:
        if self.outcome == UNDECIDED:
            return None
        return self.outcome == DIFFERS and self.value < 0

    def figure(self) -> str:
        low, high = self.decision.interval
        text = f"{self.what} {self.value:+.3f} [{low:+.3f}, {high:+.3f}]: {self.outcome}"
        if self.decision.note:
            text += f" ({self.decision.note})"
        if self.outcome == UNDECIDED:
            text += f" ({decided_by(self.needed)})"
        return text


def decided_by(needed: ClustersNeeded | None) -> str:
    """`~40 families would decide it (differs)`, or that none would."""
    if needed is None:
        return "no number of families would decide it at 80% power"
    return f"{needed.clusters} families would decide it ({needed.outcome}) at 80% power"


class Comparisons:
    """Paired comparisons of one model × setting's checkpoints, from its rows of the
    cluster table (analysis/clusters.py)."""

    def __init__(self, clusters: pd.DataFrame) -> None:
        self.clusters = clusters

    @property
    def families(self) -> int:
        return self.clusters["cluster"].nunique()

    def change(self, low: str, high: str, outcome: str, label: str | None = None) -> Compared:
        """high − low of an outcome's rate."""
        return self.contrast([(-1.0, low, outcome), (1.0, high, outcome)],
                             label or f"{low} → {high} {outcome.replace('_', ' ')}")

    def contrast(self, terms: list[tuple[float, str, str]], what: str) -> Compared:
        """Σ weight · rate(checkpoint, outcome) over `terms`, per cell, then its mean."""
        cells = None
        for weight, checkpoint, outcome in terms:
            term = rate_cells(self.clusters, checkpoint, outcome).set_index(["cluster", "seed"])
            if term.empty:
                raise ValueError(f"no cluster rows of checkpoint {checkpoint!r}")
            cells = weight * term if cells is None else cells.add(weight * term)
        cells = cells.dropna().reset_index()
        decision = decide(estimate_mean(cells))
        needed = clusters_to_decide(decision.estimate) if decision.outcome == UNDECIDED else None
        return Compared(what, decision, needed)


@dataclass(frozen=True)
class Placed:
    """A point's distance from a curve, its 95% bootstrap interval, and what the
    interval shows (`beyond` or `on`: True, False, or None when undecided)."""

    what: str
    distance: float
    low: float
    high: float
    shows: bool | None
    families: int
    question: str  # what `shows` answers: "beyond" or "on"

    def figure(self) -> str:
        text = f"{self.what} {self.distance:+.3f} [{self.low:+.3f}, {self.high:+.3f}]: "
        if self.shows is None:
            return text + f"{self.question} or not: undecided ({decided_by(self.needed())})"
        return text + (self.question if self.shows else f"not {self.question}")

    def needed(self) -> ClustersNeeded | None:
        """Families that would decide it, by the paired comparisons' rule
        (stats.clusters_to_decide), with the SE the interval's width implies (width / 3.92)
        taken as a mean over this run's families."""
        se = (self.high - self.low) / (2 * stats.norm.ppf((1 + LEVEL) / 2))
        if se <= 0:
            return None
        spread = VarianceComponents(cluster=se ** 2 * self.families)
        return clusters_to_decide(Estimate(self.distance, se, self.families - 1,
                                           self.families, 1, spread))


def interval_of(row: pd.Series, column: str) -> tuple[str, float, float, float]:
    """(checkpoint, distance, low, high) of a frontier-table row's distance `column`."""
    return row["checkpoint"], row[column], row[f"{column}_lo"], row[f"{column}_hi"]


def beyond(what: str, estimate: float, low: float, high: float, families: int,
           margin: float = MARGIN, question: str = "beyond") -> Placed:
    """Whether a point lies beyond a curve (or a gain above 0), by the 95% interval of
    its signed distance: True when the interval lies above 0, False when it lies below
    +margin (not beyond by a meaningful amount), None otherwise."""
    shows = True if low > 0 else False if high < margin else None
    return Placed(what, estimate, low, high, shows, families, question)


def on(what: str, estimate: float, low: float, high: float, families: int,
       margin: float = MARGIN) -> Placed:
    """Whether a point lies on a curve (curve.curve_side): True when the interval of its
    distance lies within ±margin, False when it excludes 0, None otherwise."""
    side = curve_side(low, high, margin)
    shows = True if side == ON else None if side == UNSETTLED else False
    return Placed(what, estimate, low, high, shows, families, "on")
