"""Every SFT and GRPO run's figures per step, as one table (results/training.parquet,
docs/results.md): what the trainer logged and what the reward logged, from the run's work
folder (train/common.py).

* The trainer's log history (`trainer_state.json`, which a finished run leaves in its
  work folder; before that, the newest checkpoint's copy): loss, learning rate, gradient
  norm, KL (GRPO with beta > 0 only), entropy, mean completion length (GRPO), token
  accuracy (SFT). Its closing summary entry (`train_loss`, `train_runtime`) is no step.
* The reward's log (`rewards.jsonl`, GRPO only, train/grpo.py): mean reward, the outcome
  mix and the share of prompt groups whose rewards all agree (no GRPO signal). TRL scores
  a batch before the optimizer step that trains on it, so a call logged at global step s
  belongs to step s + 1; the calls of one step (one per process, or per generation
  batch) are averaged, weighted by their samples.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pyarrow as pa

from codefrontier.base.layout import (
    RL_FOLDER,
    SFT,
    SFT_FOLDER,
    TRAINING,
    rl_name,
    split_run,
)
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.train.common import TRAINER_STATE_FILE, work_dir_for
from codefrontier.train.grpo import REWARD_LOG
from codefrontier.train.rl_log import read_log, reward_row

NO_SIGNAL = "groups/zero_variance_share"  # the reward log's share of groups without signal
# the table's column <- the trainer's log key
TRAINER_FIGURES = {"epoch": "epoch", "loss": "loss", "learning_rate": "learning_rate",
                   "grad_norm": "grad_norm", "kl": "kl", "entropy": "entropy",
                   "mean_completion_length": "completions/mean_length",
                   "mean_token_accuracy": "mean_token_accuracy"}
REWARD_FIGURES = ("mean_reward", *(f"rate_{o}" for o in OUTCOMES), "no_signal_share")

TRAINING_SCHEMA = pa.schema([
    ("model", pa.string()),        # as in the frontier table (a run <model>@seed<N>: <model>)
    ("seed", pa.int64()),          # the run's training seed
    ("setting", pa.string()),      # GRPO: the setting it trained in; SFT: null
    ("checkpoint", pa.string()),   # sft | rl-<reward>
    ("kind", pa.string()),         # sft | rl
    ("reward", pa.string()),       # GRPO: the run's reward; SFT: null
    ("step", pa.int64()),          # the optimizer step (1, 2, ...)
    *[(name, pa.float64()) for name in TRAINER_FIGURES],
    *[(name, pa.float64()) for name in REWARD_FIGURES],
    ("reward_samples", pa.int64()),  # completions the reward scored for the step
])


def run_identity(folder: str | os.PathLike, first_seed: int) -> dict:
    """model, seed, setting, checkpoint, kind and reward of an SFT or GRPO run's output
    folder (SFT_FOLDER, RL_FOLDER)."""
    rl = RL_FOLDER.parse(folder)
    if rl is not None:
        model, seed = split_run(rl["model"])
        return {"model": model, "seed": first_seed if seed is None else seed,
                "setting": rl["setting"], "checkpoint": rl_name(rl["reward"]), "kind": "rl",
                "reward": rl["reward"]}
    sft = SFT_FOLDER.parse(folder)
    if sft is not None:
        return {"model": sft["model"], "seed": first_seed, "setting": None,
                "checkpoint": SFT, "kind": SFT, "reward": None}
    raise ValueError(f"{folder}: expected a run's folder, {SFT_FOLDER} or {RL_FOLDER}")


def trainer_state_path(work: Path) -> Path | None:
    """The run's trainer_state.json: the work folder's (a finished run), else the newest
    checkpoint's, else None."""
    if (work / TRAINER_STATE_FILE).is_file():
        return work / TRAINER_STATE_FILE
    copies = list(work.glob(f"checkpoint-*/{TRAINER_STATE_FILE}"))
    return max(copies, key=lambda path: path.stat().st_mtime) if copies else None


def trainer_figures(state_path: Path | None) -> dict[int, dict]:
    """step -> the trainer's figures of the steps it logged."""
    if state_path is None:
        return {}
    history = json.loads(state_path.read_text()).get("log_history", [])
    return {entry["step"]: {column: entry.get(key) for column, key in TRAINER_FIGURES.items()}
            for entry in history if "loss" in entry}  # the closing summary has train_loss


def reward_figures(calls: list[dict]) -> dict[int, dict]:
    """step -> the reward's figures of the step's calls (a call at global step s scores
    step s + 1's batch), weighted by their samples."""
    by_step: dict[int, list[dict]] = defaultdict(list)
    for call in calls:
        by_step[call["step"] + 1].append(call)
    figures = {}
    for step, group in by_step.items():
        row, samples = reward_row(group), sum(c["samples"] for c in group)
        figures[step] = {"mean_reward": row["mean_reward"],
                         **{f"rate_{o}": row[o] for o in OUTCOMES},
                         "no_signal_share": sum(c.get(NO_SIGNAL, 0.0) * c["samples"]
                                                for c in group) / samples,
                         "reward_samples": samples}
    return figures


def run_log_files(folder: str | os.PathLike) -> list[Path]:
    """The logs a run's rows are read from (those it has)."""
    work = work_dir_for(Path(folder), None)
    state = trainer_state_path(work)
    return [path for path in (state, work / REWARD_LOG) if path is not None and path.is_file()]


def run_rows(folder: str | os.PathLike, first_seed: int = 0) -> list[dict]:
    """One row per step that the trainer or the reward logged, in step order."""
    work = work_dir_for(Path(folder), None)
    trainer = trainer_figures(trainer_state_path(work))
    rewards = reward_figures(read_log(work / REWARD_LOG))
    identity = run_identity(folder, first_seed)
    empty = {name: None for name in (*TRAINER_FIGURES, *REWARD_FIGURES, "reward_samples")}
    return [{**identity, "step": step, **empty, **trainer.get(step, {}),
             **rewards.get(step, {})} for step in sorted(trainer.keys() | rewards.keys())]


def write_training(runs: list[str | os.PathLike], out: str | os.PathLike = TRAINING,
                   first_seed: int = 0) -> int:
    """results/training.parquet from the runs' output folders; the number of rows."""
    from codefrontier.base.provenance import parquet_metadata, record
    from codefrontier.base.tables import write_records

    rows = [row for run in runs for row in run_rows(run, first_seed)]
    # the published runs' folders are the inputs (their provenance leads the audit on to
    # the data; a run still training has none yet); the logs read beside them are named,
    # not hashed: a trainer_state.json would pass for a provenance record of its own
    published = [run for run in runs if Path(run).is_dir()]
    logs = [str(path) for run in runs for path in run_log_files(run)]
    write_records(rows, out, schema=TRAINING_SCHEMA,
                  metadata=parquet_metadata(record(published, kind="training", logs=logs)))
    return len(rows)
