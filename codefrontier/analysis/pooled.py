"""A model × setting's checkpoints over all its training seeds: one row per checkpoint.

The frontier table has a row per seed of each checkpoint (config `seeds`). The findings
and the claims speak of what an RL run under a reward does, so they read one row per
checkpoint, pooled over the seeds, whose intervals hold the seed-to-seed variance:

- rates: the pooled rate over every seed's samples;
- standard errors: the crossed family × seed model of analysis/stats.py on the cluster
  table's cells;
- distances from the α curve: the pooled points against the pooled curve, with a
  bootstrap that resamples families and seeds (distance.crossed_resamples);
- per-sample means (pass@1, tokens, turns, format causes): weighted by samples.

With one seed the rows are the frontier table's own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from codefrontier.analysis.clusters import rate_cells
from codefrontier.analysis.distance import (
    BOOTSTRAP_REPS,
    crossed_resamples,
    curve_distances,
    distance_columns,
)
from codefrontier.analysis.stats import estimate_mean
from codefrontier.judge.verdicts import OUTCOMES

# columns of a frontier row that are a mean over its samples
PER_SAMPLE = ("pass_at_1", "mean_completion_tokens", "mean_turns", "mean_tool_calls")
FAILURE_COUNTS = ("samples", "n_correctness_failure", "n_optimization_failure")


def seeds_of(rows: pd.DataFrame) -> list[int]:
    """The training seeds of a table's rows ([] for a table written before seeds)."""
    return sorted(rows["seed"].dropna().unique().tolist()) if "seed" in rows else []


def pooled_rows(rows: pd.DataFrame, clusters: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint of one model × setting's `all` rows (every seed's), pooled
    over the seeds; `clusters`: the cluster table's rows of that model × setting. Its
    `seed` is null and `seeds` says how many were pooled."""
    seeds = seeds_of(rows)
    if len(seeds) <= 1:
        return rows.assign(seeds=1)
    pooled = [_pooled_checkpoint(group, clusters)
              for _, group in rows.sort_values("seed").groupby("checkpoint", sort=False)]
    table = pd.DataFrame(pooled).reset_index(drop=True)
    return _with_distances(table, clusters)


def _pooled_checkpoint(group: pd.DataFrame, clusters: pd.DataFrame) -> dict:
    row = group.iloc[0].to_dict()
    samples = group["samples"].to_numpy(dtype=float)
    shares = samples / samples.sum()
    row |= {"seed": None, "seeds": len(group), "samples": int(samples.sum())}
    for outcome in OUTCOMES:
        row[f"rate_{outcome}"] = float(shares @ group[f"rate_{outcome}"].to_numpy())
        row[f"se_{outcome}"] = estimate_mean(
            rate_cells(clusters, row["checkpoint"], outcome)).se
    for column in [*PER_SAMPLE, *(c for c in group if c.startswith("format_"))]:
        if column in group:
            values = group[column].to_numpy(dtype=float)
            known = ~np.isnan(values)
            row[column] = float(shares[known] @ values[known] / shares[known].sum()) \
                if known.any() else None
    return row


def _with_distances(table: pd.DataFrame, clusters: pd.DataFrame) -> pd.DataFrame:
    """The pooled rows' distances from their pooled α curves, bootstrapped over families
    and seeds."""
    cells = sorted(set(zip(clusters["cluster"], clusters["seed"], strict=True)))
    wanted = pd.MultiIndex.from_tuples([(name, *cell) for name in table["checkpoint"]
                                        for cell in cells])
    counts = (clusters.set_index(["checkpoint", "cluster", "seed"])[list(FAILURE_COUNTS)]
              .reindex(wanted, fill_value=0).to_numpy(dtype=float)
              .reshape(len(table), len(cells), len(FAILURE_COUNTS)))
    weights = crossed_resamples([c for c, _ in cells], [s for _, s in cells],
                                BOOTSTRAP_REPS, seed=0)
    alphas = [None if pd.isna(alpha) else float(alpha) for alpha in table["alpha"]]
    return table.assign(**distance_columns(curve_distances(alphas, counts, weights)))
