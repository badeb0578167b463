"""What SFT and GRPO share: trainer settings, resuming, and the final checkpoint folder.

A run keeps its trainer checkpoints in a work folder next to the output
(`OUT.work/` unless told otherwise), so a killed run resumes from the last one
and a workflow manager that deletes the outputs of a failed job loses nothing. Once the
output is published they serve nothing (with ZeRO-3 each holds about 14 bytes of
optimizer state per parameter): they are removed unless the run is asked to keep them;
the run's logs stay in the work folder, the trainer's own among them (`trainer_state.json`:
its log history, step times and completion lengths, which `codefrontier plan --calibrate`
reads). The work folder also holds the run's fingerprint (`run.json`: inputs, model,
trainer settings); a run whose fingerprint differs starts from step 0 instead
of resuming checkpoints that were trained for something else. The output
folder appears only when training is complete (written to a temporary folder,
then renamed). A run that must stop before its end (a time limit, a signal) saves a
checkpoint at a step boundary and raises StoppedToResubmit (train/stopping.py,
train/submissions.py); the next submission resumes it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import yaml

from codefrontier.base import shards
from codefrontier.base.provenance import write_provenance
from codefrontier.base.publish import publish, temporary_beside
from codefrontier.train.deadline import run_deadline
from codefrontier.train.submissions import (
    StoppedToResubmit,
    Submission,
    begin_submission,
    is_main_process,
)

log = logging.getLogger("codefrontier.train")

# Facts from trl 1.16 on CPU: bf16 defaults to on and fails without a GPU;
# gradient (activation) checkpointing costs time and buys nothing on a small model.
CPU_SAFE = {"bf16": False, "gradient_checkpointing": False}


def accelerator_settings() -> dict[str, Any]:
    import torch

    if torch.cuda.is_available():
        return {"bf16": torch.cuda.is_bf16_supported()}
    return {**CPU_SAFE, "use_cpu": True}  # several CPU processes then form a gloo group


# YAML 1.1 reads these as booleans; as setting values they are words (save_strategy=no).
YAML_WORDS = frozenset({"yes", "no", "on", "off", "y", "n"})


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`key=value` strings, values read as YAML (1e-4, true, [a, b]); yes/no/on/off stay
    words."""
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {pair!r}")
        parsed = value.strip() if value.strip().lower() in YAML_WORDS else yaml.safe_load(value)
        overrides[key.strip()] = _number_if_possible(parsed)
    return overrides


def _number_if_possible(value: Any) -> Any:
    """YAML 1.1 reads `1e-3` (no dot) as a string; people mean a number."""
    if isinstance(value, str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
    return value


def trainer_config(config_class, defaults: dict, overrides: dict, output_dir: Path):
    """A TRL config from our defaults, the accelerator's needs and the user's overrides,
    type-checked by transformers' argument parser (unknown keys are an error)."""
    from transformers import HfArgumentParser

    known = {f.name for f in dataclasses.fields(config_class)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"unknown {config_class.__name__} settings: {', '.join(unknown)}")
    values = {**defaults, **accelerator_settings(), **overrides, "output_dir": str(output_dir)}
    (config,) = HfArgumentParser(config_class).parse_dict(values, allow_extra_keys=False)
    return config


def work_dir_for(out: Path, work_dir: str | os.PathLike | None) -> Path:
    return Path(work_dir) if work_dir else out.with_name(out.name + ".work")


def last_checkpoint(work_dir: Path) -> str | None:
    """The newest complete trainer checkpoint; incomplete ones (a kill mid-save) are removed.

    The trainer writes trainer_state.json after the weights, optimizer and RNG
    states, so a checkpoint whose state file parses is complete.
    """
    if not work_dir.is_dir():
        return None
    candidates = sorted((p for p in work_dir.glob("checkpoint-*")
                         if p.is_dir() and p.name.removeprefix("checkpoint-").isdigit()),
                        key=lambda p: int(p.name.removeprefix("checkpoint-")), reverse=True)
    for candidate in candidates:
        try:
            json.loads((candidate / "trainer_state.json").read_text())
        except (OSError, ValueError):
            log.warning("removing incomplete checkpoint %s", candidate)
            shutil.rmtree(candidate, ignore_errors=True)
            continue
        return str(candidate)
    return None


def checkpoint_step(checkpoint: str | os.PathLike | None) -> int:
    """The step a trainer checkpoint was saved at (0 for none)."""
    return int(Path(checkpoint).name.removeprefix("checkpoint-")) if checkpoint else 0


def start_submission(work_dir: Path, submission: Submission | None) -> float | None:
    """First thing in a training command: refuse a retry that follows no progress, log this
    submission's start (train/submissions.py), and return its deadline (train/deadline.py)."""
    submission = submission or Submission()
    deadline = run_deadline(submission.stop_after_minutes)
    resumes = checkpoint_step(last_checkpoint(work_dir)) if is_main_process() else 0
    begin_submission(work_dir, submission, deadline, resumes)
    return deadline


FINGERPRINT_FILE = "run.json"
TRAINER_STATE_FILE = "trainer_state.json"  # the trainer's log, written when the run ends

# Trainer settings that decide only where and how often a run writes or reports,
# never the weights it trains, so changing them keeps a run resumable. Anything
# not listed counts: a needless restart costs time, a wrong resume costs results.
RESUMABLE_SETTINGS = frozenset({
    "output_dir",  # the work folder itself, which may move
    "logging_strategy", "logging_steps", "logging_first_step",
    "save_strategy", "save_steps", "save_total_limit",
    "report_to", "run_name",
    "local_rank",  # which process this is, not what the run computes
})


def trainer_nodes(trainer) -> int:
    """The machines the run's processes spread over (its processes / those per node)."""
    per_node = int(os.environ.get("LOCAL_WORLD_SIZE") or trainer.accelerator.num_processes)
    return max(1, trainer.accelerator.num_processes // max(1, per_node))


def run_fingerprint(trainer, model: str, inputs: list, fields: dict) -> dict[str, Any]:
    """What a run's result depends on: the trainer settings (less RESUMABLE_SETTINGS),
    the model and its content when local, the inputs' contents, the number of processes
    (it sets the global batch) and the run's own fields (kind, reward)."""
    from codefrontier.base.provenance import content_sha256

    settings = {key: value for key, value in trainer.args.to_dict().items()
                if key not in RESUMABLE_SETTINGS}
    fingerprint = {
        **fields,
        "model": str(model),
        "model_sha256": content_sha256(model) if Path(model).is_dir() else None,
        "inputs": {str(path): content_sha256(path) for path in inputs},
        "processes": trainer.accelerator.num_processes,
        "trainer": settings,
    }
    return json.loads(json.dumps(fingerprint, default=str))  # as it reads back from run.json


def read_fingerprint(work_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((work_dir / FINGERPRINT_FILE).read_text())
    except (OSError, ValueError):
        return None


def write_fingerprint(work_dir: Path, fingerprint: dict[str, Any]) -> None:
    tmp = work_dir / f".{FINGERPRINT_FILE}.tmp"
    tmp.write_text(json.dumps(fingerprint, indent=2, sort_keys=True))
    tmp.replace(work_dir / FINGERPRINT_FILE)


def fingerprint_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> str:
    """What differs between two fingerprints, as `key old -> new` items."""
    if old is None:
        return f"the work folder has no readable {FINGERPRINT_FILE} (an older version's run?)"
    return shards.fingerprint_changes(old, new, flatten=_flat)


def _flat(fingerprint: dict[str, Any]) -> dict[str, Any]:
    """Trainer settings by their TRL name, inputs as `input PATH`, the rest as is."""
    flat = {key: value for key, value in fingerprint.items() if key not in ("trainer", "inputs")}
    flat |= {f"input {path}": digest for path, digest in (fingerprint.get("inputs") or {}).items()}
    return flat | (fingerprint.get("trainer") or {})


def prepare_work_dir(work_dir: Path, fingerprint: dict[str, Any],
                     run_files: tuple[str, ...] = ()) -> None:
    """Make the work folder hold only what this run may resume: checkpoints of another run
    (and its `run_files`, such as logs) are removed, then the fingerprint is written."""
    work_dir.mkdir(parents=True, exist_ok=True)
    stored = read_fingerprint(work_dir)
    if last_checkpoint(work_dir) and stored != fingerprint:
        log.info("not resuming: %s; starting from step 0",
                 fingerprint_changes(stored, fingerprint))
        for checkpoint in work_dir.glob("checkpoint-*"):
            if checkpoint.is_dir():
                shutil.rmtree(checkpoint)
    if last_checkpoint(work_dir) is None:
        for name in run_files:  # a run from step 0 starts its logs afresh
            (work_dir / name).unlink(missing_ok=True)
    write_fingerprint(work_dir, fingerprint)


def train_and_save(trainer, work: Path, out: Path, model: str, inputs: list,
                   run_files: tuple[str, ...] = (), keep_checkpoints: bool = False,
                   deadline: float | None = None, **fields) -> Path:
    """Train (resuming from the work folder's last complete checkpoint when it belongs to
    the same run) and save the result with a provenance record; `model` counts as an
    input when it is a local folder. `run_files` are work-folder files that the run
    appends to, removed when it starts from step 0. The trainer checkpoints are removed
    once the result is published, unless `keep_checkpoints`. Before `deadline` (a Unix
    time), or soon after a signal, training saves a checkpoint and stops: StoppedToResubmit."""
    from codefrontier.base.provenance import record
    from codefrontier.train.stopping import StopInTime

    if trainer.is_world_process_zero():
        prepare_work_dir(work, run_fingerprint(trainer, model, inputs, fields),
                         (*run_files, TRAINER_STATE_FILE))
    trainer.accelerator.wait_for_everyone()
    resume = last_checkpoint(work)
    if resume:
        log.info("resuming from %s", resume)
    stop = StopInTime(deadline, work)
    trainer.add_callback(stop)
    trainer.train(resume_from_checkpoint=resume)
    trainer.save_state()  # into the work folder (args.output_dir): it outlives the checkpoints
    if stop.stopped:
        raise StoppedToResubmit(trainer.state.global_step, stop.stopped)
    config = trainer.args
    local = [path for path in (model,) if Path(path).is_dir()]
    saved = save_final(trainer, out, record(
        [*local, *inputs], model=str(model), seed=config.seed, resumed_from=resume,
        settings=config.to_dict() | {"output_dir": None, "logging_dir": None}, **fields))
    if not keep_checkpoints and trainer.is_world_process_zero():
        remove_checkpoints(work)
    return saved


def remove_checkpoints(work_dir: Path) -> list[Path]:
    """Delete a published run's trainer checkpoints (the logs beside them stay)."""
    removed = sorted(p for p in work_dir.glob("checkpoint-*") if p.is_dir())
    for checkpoint in removed:
        shutil.rmtree(checkpoint)
    if removed:
        log.info("removed %d trainer checkpoints from %s (the output is published)",
                 len(removed), work_dir)
    return removed


def save_final(trainer, out: Path, provenance: dict) -> Path:
    """The trained model as a save_pretrained folder that generates with the KV cache on.

    Every process takes part in saving (ZeRO-3 gathers the sharded weights);
    the main process writes provenance and renames the folder into place.
    """
    tmp = temporary_beside(out, tag="train")  # every rank writes here: one name for all
    main = trainer.is_world_process_zero()
    if main:
        shutil.rmtree(tmp, ignore_errors=True)
    trainer.accelerator.wait_for_everyone()
    model = trainer.model
    model.config.use_cache = True
    if model.generation_config is not None:
        model.generation_config.use_cache = True
    trainer.save_model(str(tmp))
    if main:
        trainer.processing_class.save_pretrained(str(tmp))
        write_provenance(tmp, {**provenance, "processes": trainer.accelerator.num_processes,
                               "nodes": trainer_nodes(trainer)})
        publish(tmp, out)
    trainer.accelerator.wait_for_everyone()
    return out
