"""A GRPO run of this project's trainer, read from its logs as a calibration run for
`codefrontier plan --calibrate RUN` (pipeline/calibration.py).

What the trainer leaves in its work folder (train/common.py): `run.json`, the run's
fingerprint (its processes and trainer settings: the completions per step and the cap),
and TRL's `trainer_state.json`, whose log history gives per logged step `step_time`
(seconds in the step's training_step calls: generation, reward, forward and backward),
`completions/mean_length` and the running `num_tokens` (prompt and completion tokens
of every process), and at its end `train_runtime`. The work folder holds it once the run
has ended; while it runs, each checkpoint folder holds its own copy.
"""

from __future__ import annotations

import json
from pathlib import Path

from codefrontier.pipeline.calibration import RlRun
from codefrontier.pipeline.costs import parameters_of_config
from codefrontier.train.common import FINGERPRINT_FILE, TRAINER_STATE_FILE, read_fingerprint

WORK_SUFFIX = ".work"
STEP_TIME, MEAN_LENGTH, TOKENS = "step_time", "completions/mean_length", "num_tokens"


def work_folder(path: Path) -> Path:
    """The work folder of a run named by its output folder, its work folder or one of
    its checkpoints."""
    path = Path(path)
    if path.name.startswith("checkpoint-"):
        path = path.parent
    if not path.name.endswith(WORK_SUFFIX):
        path = path.with_name(path.name + WORK_SUFFIX)
    if not path.is_dir():
        raise ValueError(f"{path}: no such work folder (give a GRPO run's output folder, "
                         f"its {WORK_SUFFIX} folder or one of its checkpoints)")
    return path


def trainer_state(work: Path) -> tuple[dict, Path]:
    """The newest trainer_state.json of the run: the work folder's, or a checkpoint's."""
    found = [work / TRAINER_STATE_FILE, *work.glob(f"checkpoint-*/{TRAINER_STATE_FILE}")]
    found = [path for path in found if path.is_file()]
    if not found:
        raise ValueError(f"{work}: no {TRAINER_STATE_FILE}, neither of a finished run nor "
                         "in a checkpoint")
    newest = max(found, key=lambda path: path.stat().st_mtime)
    return json.loads(newest.read_text()), newest


def _parameters(work: Path, model: str) -> float:
    output = work.with_name(work.name.removesuffix(WORK_SUFFIX))
    checkpoints = sorted(work.glob("checkpoint-*/config.json"), key=lambda p: p.stat().st_mtime)
    for config in (output / "config.json", *checkpoints[::-1], Path(model) / "config.json"):
        if config.is_file():
            return parameters_of_config(json.loads(config.read_text()))
    raise ValueError(f"{work}: cannot tell the model's size: no config.json in {output}, "
                     f"in a checkpoint or in the model's folder ({model})")


def _logged_steps(state: dict, state_path: Path) -> list[tuple[dict, int]]:
    """The log entries of training steps, each with the number of steps it averages (the
    steps since the entry before: logging_steps)."""
    logged = [entry for entry in state.get("log_history", []) if STEP_TIME in entry]
    if not logged:
        raise ValueError(f"{state_path}: no '{STEP_TIME}' in its log history (a GRPO run of "
                         "TRL 1.x logs one per logged step)")
    for entry in logged:
        missing = [key for key in ("step", MEAN_LENGTH, TOKENS) if key not in entry]
        if missing:
            raise ValueError(f"{state_path}: the entry of step {entry.get('step')} has no "
                             f"{', '.join(missing)}")
    before = [0] + [entry["step"] for entry in logged[:-1]]
    return [(entry, entry["step"] - previous) for entry, previous in zip(logged, before,
                                                                          strict=True)]


def measured_run(path: Path, gpu_model: str) -> RlRun:
    """The run at `path` as a calibration run: its GPU-hours, steps, completions per step,
    mean prompt and completion lengths, measured on `gpu_model` GPUs (one per process)."""
    work = work_folder(path)
    fingerprint = read_fingerprint(work)
    if fingerprint is None:
        raise ValueError(f"{work}: no readable {FINGERPRINT_FILE} (not a codefrontier run?)")
    state, state_path = trainer_state(work)
    logged = _logged_steps(state, state_path)
    steps = sum(n for _, n in logged)
    step_seconds = sum(entry[STEP_TIME] * n for entry, n in logged)
    # train_runtime adds the optimizer steps and saves, but covers only the last start of
    # a resumed run: the larger of the two is the run's
    runtime = max((entry.get("train_runtime", 0.0) for entry in state["log_history"]),
                  default=0.0)
    settings, processes = fingerprint["trainer"], int(fingerprint.get("processes", 1))
    completions_per_step = (settings["per_device_train_batch_size"] * processes
                            * settings.get("gradient_accumulation_steps", 1))
    mean_length = sum(entry[MEAN_LENGTH] * n for entry, n in logged) / steps
    # num_tokens counts every prompt and completion token the run has generated so far
    tokens_each = logged[-1][0][TOKENS] / (steps * completions_per_step)
    return RlRun(
        name=str(path), model=fingerprint.get("model", ""),
        parameters=_parameters(work, fingerprint.get("model", "")), gpu=gpu_model,
        separate_generation=bool(settings.get("use_vllm"))
        and settings.get("vllm_mode") == "server",
        gpus=processes, steps=steps, completions_per_step=completions_per_step,
        prompt_tokens=max(tokens_each - mean_length, 0.0),
        max_completion_tokens=settings.get("max_completion_length"),
        mean_completion_tokens=mean_length,
        gpu_hours=processes * max(step_seconds, runtime) / 3600, time_source="measured")
