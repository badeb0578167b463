"""Where a workflow run's time went: Snakemake's per-job benchmark files, by stage.

Every rule writes `results/benchmarks/<rule>[/<wildcards>].tsv` (Snakemake's
`benchmark:` directive: wall seconds `s`, peak memory `max_rss`, CPU time `cpu_time`).
The table sums them per rule; jobs of one stage may have run side by side, so the
sums are compute, not the run's wall time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd


def stage_times(benchmarks: str | os.PathLike) -> pd.DataFrame:
    """One row per rule: jobs, total and longest wall seconds, CPU seconds, peak MB."""
    root = Path(benchmarks)
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        stage = path.relative_to(root).parts[0].removesuffix(".tsv")
        table = pd.read_csv(path, sep="\t")
        rows.append({"stage": stage, "wall_s": float(table["s"].iloc[-1]),
                     "cpu_s": float(table.get("cpu_time", pd.Series([float("nan")])).iloc[-1]),
                     "max_rss_mb": float(table.get("max_rss", pd.Series([float("nan")])).iloc[-1])})
    if not rows:
        raise FileNotFoundError(f"no benchmark files under {root}")
    jobs = pd.DataFrame(rows)
    return jobs.groupby("stage", sort=False).agg(
        jobs=("wall_s", "size"), total_wall_s=("wall_s", "sum"), longest_wall_s=("wall_s", "max"),
        cpu_s=("cpu_s", "sum"), max_rss_mb=("max_rss_mb", "max")).reset_index()


def render(table: pd.DataFrame) -> str:
    """A Markdown table."""
    lines = ["| stage | jobs | wall s (sum) | longest job s | CPU s | peak MB |",
             "|---|---|---|---|---|---|"]
    for row in table.itertuples():
        lines.append(f"| {row.stage} | {row.jobs} | {row.total_wall_s:.0f} | "
                     f"{row.longest_wall_s:.0f} | {row.cpu_s:.0f} | {row.max_rss_mb:.0f} |")
    return "\n".join(lines)
