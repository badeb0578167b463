"""A training run that takes several submissions: the exit status that asks for the next
one, and the work folder's log of each submission's start and stop.

A run stops before its job's time limit, or on a signal, at a step boundary: it saves a
trainer checkpoint into the work folder and exits with RESUBMIT_EXIT_STATUS
(train/stopping.py). The workflow submits the job again (the training rules' `retries`),
and the next submission resumes that checkpoint. Every submission appends to
`OUT.work/submissions.jsonl`: a `start` line (the attempt, the step it resumes from, its
deadline) and, when it stops to be resubmitted, a `stop` line (the step, why, how long
the save took and how much time was left).

A job that fails for another reason (a bug, a bad setting) is retried by the workflow too,
which cannot tell exit statuses apart; so a retry (attempt 2 and later) starts only when
the submission before it made progress: it saved a checkpoint or stopped to be
resubmitted. Otherwise it fails at once, before loading anything, and says why.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESUBMIT_EXIT_STATUS = 75  # EX_TEMPFAIL in sysexits.h: a temporary failure, try again
SUBMISSIONS_LOG = "submissions.jsonl"
# the signals that stop a run at its next step (SIGTERM: Slurm's notice of a time limit, a
# preemption or a requeue; SIGUSR1: one's own, such as sbatch's --signal)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)


class StoppedToResubmit(Exception):  # a request for the next submission, not an error
    """Training stopped before its end, with a checkpoint saved to resume from."""

    def __init__(self, step: int, reason: str) -> None:
        super().__init__(f"stopped at step {step} ({reason}) with a checkpoint saved: "
                         f"run the same command again to resume "
                         f"(exit status {RESUBMIT_EXIT_STATUS})")
        self.step, self.reason = step, reason


class NoProgressError(RuntimeError):
    """A retry whose previous submission neither saved a checkpoint nor asked for one."""


@dataclass(frozen=True)
class Submission:
    """This process's place in a run of several submissions: which attempt it is (the
    workflow's retry count, 1 for a first try or a person's rerun) and its own time limit
    (minutes from its start; a Slurm job's end time applies without it)."""

    attempt: int = 1
    stop_after_minutes: float | None = None


def log_path(work_dir: Path) -> Path:
    return work_dir / SUBMISSIONS_LOG


def read_log(work_dir: Path) -> list[dict[str, Any]]:
    """The work folder's submission log, oldest first (a torn last line is skipped)."""
    try:
        lines = log_path(work_dir).read_text().splitlines()
    except OSError:
        return []
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def append_log(work_dir: Path, event: str, **fields: Any) -> dict[str, Any]:
    entry = {"event": event, "time": time.time(), **fields}
    work_dir.mkdir(parents=True, exist_ok=True)
    with log_path(work_dir).open("a") as handle:
        handle.write(json.dumps(entry) + "\n")
    return entry


def is_main_process(env=os.environ) -> bool:
    """Global rank 0 (before torch.distributed exists: the launcher's RANK)."""
    return int(env.get("RANK", "0")) == 0


def newest_checkpoint_time(work_dir: Path) -> float | None:
    """When the newest complete trainer checkpoint was written (its trainer_state.json)."""
    times = [state.stat().st_mtime for state in work_dir.glob("checkpoint-*/trainer_state.json")]
    return max(times, default=None)


def check_progress(records: list[dict[str, Any]], attempt: int,
                   checkpoint_time: float | None) -> None:
    """Raise NoProgressError when this retry follows a submission that made no progress."""
    starts = [i for i, entry in enumerate(records) if entry.get("event") == "start"]
    if attempt <= 1 or not starts:
        return
    previous = records[starts[-1]]
    stopped = any(entry.get("event") == "stop" for entry in records[starts[-1] + 1:])
    saved = checkpoint_time is not None and checkpoint_time > previous["time"]
    if not (stopped or saved):
        raise NoProgressError(
            f"attempt {attempt}: the previous submission (attempt {previous.get('attempt')}, "
            f"started at step {previous.get('step')}) ended without saving a checkpoint or "
            "asking to be resubmitted, so a retry would most likely fail the same way; its "
            "log says why. Fix the cause and run the workflow again: a new run's first "
            "attempt always starts")


def begin_submission(work_dir: Path, submission: Submission, deadline: float | None,
                     resumes_step: int) -> None:
    """Before anything is loaded: refuse a retry that follows no progress, then log this
    submission's start (the main process only)."""
    if not is_main_process():
        return
    check_progress(read_log(work_dir), submission.attempt, newest_checkpoint_time(work_dir))
    append_log(work_dir, "start", attempt=submission.attempt, step=resumes_step,
               deadline=deadline, slurm_job=os.environ.get("SLURM_JOB_ID"))


def stopped_since(work_dir: Path, since: float) -> bool:
    """Whether a submission stopped to be resubmitted after `since` (a launcher asks this
    of its processes' work folder: accelerate reports their exit statuses as 1)."""
    return any(entry.get("event") == "stop" and entry.get("time", 0) >= since
               for entry in read_log(work_dir))
