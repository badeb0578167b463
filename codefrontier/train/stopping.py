"""Stopping a run in time: before its deadline, or soon after a signal, at a step boundary,
with a full trainer checkpoint saved for the next submission (train/submissions.py).

At each step's end every process decides: a stop signal (STOP_SIGNALS) arrived since the
last step, or there is no time left for one more step, a save and the process's
exit before the deadline (train/deadline.py). The next step is taken to last as long as
the longest of the recent ones, a save as long as the longest measured in this run (its
earlier submissions included), and before any save is measured, as long as writing the
checkpoint's bytes at a modest rate. The processes agree (the largest decision wins, one
all_reduce of one integer per step: every process reaches it at the same step, so it is
safe under ZeRO-3 too), and then all save a checkpoint in the trainer's own format (the
one `last_checkpoint` resumes) and stop. A signal handler only sets a flag.
"""

from __future__ import annotations

import logging
import signal
import time
from collections import deque
from pathlib import Path

from transformers import TrainerCallback

from codefrontier.train.submissions import STOP_SIGNALS, append_log, read_log

log = logging.getLogger("codefrontier.train")

# after the stop's save, for the process and its job to end before the deadline; one that
# ends later loses nothing (its checkpoint is complete) but is killed KillWait later
EXIT_SECONDS = 10
RECENT_STEPS = 10  # the next step is taken to last as long as the longest of these
# until a save is measured: a checkpoint's bytes (weights and Adam's two float32 moments,
# float32 master weights under mixed precision) written at a shared file system's modest pace
CHECKPOINT_BYTES_PER_PARAMETER = 16
ASSUMED_WRITE_BYTES_PER_SECOND = 200e6
# why the processes stop, as one integer they agree on (the largest wins)
CONTINUE, DEADLINE, SIGNAL = 0, 1, 2
REASONS = {DEADLINE: "deadline", SIGNAL: "signal"}


def must_stop(seconds_left: float, next_step_seconds: float, save_seconds: float) -> bool:
    """Whether one more step would leave too little time to save and exit."""
    return seconds_left < next_step_seconds + save_seconds + EXIT_SECONDS


def assumed_save_seconds(model) -> float:
    """How long a first checkpoint is taken to take, from the model's size (a ZeRO-3
    shard's full size is its ds_numel)."""
    parameters = sum(getattr(p, "ds_numel", p.numel()) for p in model.parameters())
    return parameters * CHECKPOINT_BYTES_PER_PARAMETER / ASSUMED_WRITE_BYTES_PER_SECOND


def measured_save_seconds(work_dir: Path) -> float | None:
    """The longest save that the run's earlier submissions measured."""
    measured = [entry["longest_save_seconds"] for entry in read_log(work_dir)
                if entry.get("event") == "stop" and entry.get("longest_save_seconds")]
    return max(measured, default=None)


def agree(decision: int, device) -> int:
    """The largest decision over every process of the run (each calls this at the same
    step boundary); the process's own where it runs alone."""
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return decision
    flag = torch.tensor([decision], dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return int(flag.item())


class StopInTime(TrainerCallback):
    """Saves a checkpoint and stops training before `deadline` (a Unix time; None: only on
    a signal); `stopped` then says why. The main process logs the stop in the work
    folder's submission log."""

    def __init__(self, deadline: float | None, work_dir: Path) -> None:
        self.deadline = deadline
        self.work_dir = work_dir
        self.stopped: str | None = None
        self.signalled: int | None = None
        self.step_seconds: deque[float] = deque(maxlen=RECENT_STEPS)
        self.longest_save = measured_save_seconds(work_dir)
        self._previous_handlers: dict[int, object] = {}
        self._mark = time.monotonic()
        self._save_started: float | None = None
        self._signal_time: float | None = None

    def _note_signal(self, signum, frame) -> None:
        if self.signalled is None:
            self.signalled, self._signal_time = signum, time.monotonic()

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        for signum in STOP_SIGNALS:
            self._previous_handlers[signum] = signal.signal(signum, self._note_signal)
        if self.longest_save is None and model is not None:
            self.longest_save = assumed_save_seconds(model)
        self._mark = time.monotonic()

    def on_step_end(self, args, state, control, **kwargs):
        now = time.monotonic()
        self.step_seconds.append(now - self._mark)
        self._mark = now
        # after the last step comes the output's save, which takes about a checkpoint's
        last = state.global_step >= state.max_steps
        own = self._decision(self._save_estimate() if last else max(self.step_seconds))
        agreed = agree(own, args.device)
        if agreed != CONTINUE:
            self.stopped = self._describe(own) if own == agreed else \
                f"{REASONS[agreed]} (of another process)"
            control.should_save = True
        if control.should_save:
            self._save_started = now

    def on_save(self, args, state, control, **kwargs):
        now = time.monotonic()
        save_seconds = now - (self._save_started or now)
        self.longest_save = max(self.longest_save or 0.0, save_seconds)
        self._mark = now
        if self.stopped:
            control.should_training_stop = True
            if state.is_world_process_zero:
                self._log_stop(state.global_step, save_seconds)

    def on_train_end(self, args, state, control, **kwargs):
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)
        self._previous_handlers.clear()

    def _save_estimate(self) -> float:
        return self.longest_save or 0.0

    def _decision(self, next_seconds: float) -> int:
        """This process's own decision, with `next_seconds` of work before the next step
        boundary (a step, or the output's save after the last step)."""
        if self.signalled is not None:
            return SIGNAL
        if self.deadline is not None and must_stop(self.deadline - time.time(), next_seconds,
                                                   self._save_estimate()):
            return DEADLINE
        return CONTINUE

    def _describe(self, decision: int) -> str:
        if decision == SIGNAL:
            return f"signal {signal.Signals(self.signalled).name}"
        return REASONS[decision]

    def _log_stop(self, step: int, save_seconds: float) -> None:
        seconds_left = None if self.deadline is None else round(self.deadline - time.time(), 1)
        log.info("stopping at step %d (%s): checkpoint saved in %.1f s%s", step, self.stopped,
                 save_seconds, "" if seconds_left is None else f", {seconds_left} s before the "
                                                               "deadline")
        since_signal = None if self._signal_time is None else \
            round(time.monotonic() - self._signal_time, 3)
        append_log(self.work_dir, "stop", step=step, reason=self.stopped,
                   save_seconds=round(save_seconds, 3), seconds_left=seconds_left,
                   seconds_since_signal=since_signal,
                   longest_step_seconds=round(max(self.step_seconds), 3),
                   longest_save_seconds=round(self._save_estimate(), 3))
