"""Every checkpoint's outcome counts per cluster: the cluster table.

The findings compare checkpoints judged on the same problems, so they work on paired
per-cluster differences (analysis/stats.py); a cluster is the unit the eval problems
were drawn in (`problems.schema.cluster_of`: a bundled family, or a real dataset's
problem). One row per model × setting × seed × checkpoint × cluster, with the samples
and the count of each outcome. Schema: CLUSTER_SCHEMA (docs/results.md).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict

import pandas as pd
import pyarrow as pa

from codefrontier.analysis.frontier import Checkpoint
from codefrontier.base.tables import read_records
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.problems.schema import cluster_of, load_problems

CLUSTER_SCHEMA = pa.schema([
    ("model", pa.string()), ("setting", pa.string()), ("seed", pa.int64()),
    ("checkpoint", pa.string()),
    ("cluster", pa.string()),        # problems.schema.cluster_of
    ("difficulty", pa.string()),     # the cluster's problems' (a family has one)
    ("problems", pa.int64()),        # problems of the cluster with samples
    ("samples", pa.int64()),
    *[(f"n_{o}", pa.int64()) for o in OUTCOMES],  # samples with each outcome
])


def cluster_rows(checkpoints: list[Checkpoint], problems_path: str | os.PathLike) -> list[dict]:
    """One row per checkpoint × cluster of its verdicts."""
    difficulty = {p.problem_id: p.difficulty for p in load_problems(problems_path)}
    rows = []
    for ckpt in checkpoints:
        samples: dict[str, Counter] = defaultdict(Counter)
        problems: dict[str, set[str]] = defaultdict(set)
        for verdict in read_records(ckpt.verdicts):
            cluster = cluster_of(verdict["problem_id"])
            samples[cluster][verdict["outcome"]] += 1
            problems[cluster].add(verdict["problem_id"])
        for cluster in sorted(samples):
            levels = {difficulty[pid] for pid in problems[cluster]}
            rows.append({"model": ckpt.model, "setting": ckpt.setting, "seed": ckpt.seed,
                         "checkpoint": ckpt.name, "cluster": cluster,
                         "difficulty": levels.pop() if len(levels) == 1 else "mixed",
                         "problems": len(problems[cluster]),
                         "samples": sum(samples[cluster].values()),
                         **{f"n_{o}": samples[cluster][o] for o in OUTCOMES}})
    return rows


def write_clusters(verdicts: list[str | os.PathLike], problems_path: str | os.PathLike,
                   first_seed: int, out: str | os.PathLike) -> int:
    """results/clusters.parquet from the checkpoints' verdict files (`first_seed`: the
    grid's first, the seed of the runs named by their model alone); the number of rows."""
    from codefrontier.base.provenance import parquet_metadata, record
    from codefrontier.base.tables import write_records

    checkpoints = [Checkpoint.from_verdicts_path(p, first_seed) for p in verdicts]
    rows = cluster_rows(checkpoints, problems_path)
    write_records(rows, out, schema=CLUSTER_SCHEMA, metadata=parquet_metadata(
        record([*verdicts, problems_path], kind="clusters")))
    return len(rows)


def cluster_rate(rows: pd.DataFrame, outcome: str) -> pd.Series:
    """Each row's rate of an outcome: its samples with it over its samples."""
    return rows[f"n_{outcome}"] / rows["samples"]


def rate_cells(clusters: pd.DataFrame, checkpoint: str, outcome: str) -> pd.DataFrame:
    """One checkpoint's rate of an outcome per (cluster, seed): the cells the statistics
    of analysis/stats.py take (columns cluster, seed, value)."""
    rows = clusters[clusters["checkpoint"] == checkpoint]
    return pd.DataFrame({"cluster": rows["cluster"].to_numpy(),
                         "seed": rows["seed"].to_numpy(),
                         "value": cluster_rate(rows, outcome).to_numpy()})
