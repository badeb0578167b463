"""When a training process must have stopped: its Slurm job's end time, or its own time
limit (`--stop-after`), whichever comes first.

The end time is asked of Slurm (`squeue -o %e`), not computed from the job's time limit:
it counts from the job's real start, and a requeued job's is its new start's. Snakemake's
jobs keep SLURM_JOB_ID (its job-step plugin strips most other SLURM_* variables).
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Mapping
from datetime import datetime

log = logging.getLogger("codefrontier.train")


def parse_end_time(text: str) -> float | None:
    """squeue's end time (`2026-12-07T10:28:23`, the local time) as a Unix time; None for
    a job without one (N/A, UNLIMITED, NONE)."""
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        return None


def slurm_end_time(job_id: str) -> float | None:
    """The Slurm job's end time, or None where Slurm cannot say."""
    try:
        done = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%e"], capture_output=True,
                              text=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as error:
        log.warning("no end time for Slurm job %s (%s): stopping only on a signal", job_id,
                    error)
        return None
    return parse_end_time(done.stdout)


def run_deadline(stop_after_minutes: float | None, started: float | None = None,
                 env: Mapping[str, str] = os.environ) -> float | None:
    """The Unix time by which this process must have saved and exited: the earlier of its
    Slurm job's end time and `stop_after_minutes` after `started` (now by default)."""
    limits = []
    if stop_after_minutes is not None:
        limits.append((time.time() if started is None else started) + 60 * stop_after_minutes)
    job = env.get("SLURM_JOB_ID")
    if job:
        end = slurm_end_time(job)
        if end is not None:
            limits.append(end)
    return min(limits, default=None)
