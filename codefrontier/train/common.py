"""What SFT and GRPO share: trainer settings, resuming, and the final checkpoint folder.

A run keeps its trainer checkpoints in a work folder next to the output
(`OUT.work/` unless told otherwise), so a killed run resumes from the last one
and a workflow manager that deletes the outputs of a failed job loses nothing.
The output folder appears only when training is complete (written to a
temporary folder, then renamed).
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

log = logging.getLogger("codefrontier.train")

# Facts from trl 1.16 on CPU: bf16 defaults to on and fails without a GPU;
# activation checkpointing costs time and buys nothing on a small model.
CPU_SAFE = {"bf16": False, "activation_checkpointing": False}


def accelerator_settings() -> dict[str, Any]:
    import torch

    if torch.cuda.is_available():
        return {"bf16": torch.cuda.is_bf16_supported()}
    return {**CPU_SAFE, "use_cpu": True}  # several CPU processes then form a gloo group


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`key=value` strings, values read as YAML (1e-4, true, [a, b])."""
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {pair!r}")
        overrides[key.strip()] = _number_if_possible(yaml.safe_load(value))
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


def train_and_save(trainer, work: Path, out: Path, model: str, inputs: list, **fields) -> Path:
    """Train (resuming from the work folder's last complete checkpoint) and save the result
    with a provenance record; `model` counts as an input when it is a local folder."""
    from codefrontier.provenance import record

    resume = last_checkpoint(work)
    if resume:
        log.info("resuming from %s", resume)
    trainer.train(resume_from_checkpoint=resume)
    config = trainer.args
    local = [path for path in (model,) if Path(path).is_dir()]
    return save_final(trainer, out, record(
        [*local, *inputs], model=str(model), seed=config.seed, resumed_from=resume,
        settings=config.to_dict() | {"output_dir": None, "logging_dir": None}, **fields))


def save_final(trainer, out: Path, provenance: dict) -> Path:
    """The trained model as a save_pretrained folder that generates with the KV cache on.

    Every process takes part in saving (ZeRO-3 gathers the sharded weights);
    the main process writes provenance and renames the folder into place.
    """
    tmp = out.with_name(f".{out.name}.tmp")
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
        record = {**provenance, "processes": trainer.accelerator.num_processes,
                  **library_versions()}
        (tmp / "provenance.json").write_text(json.dumps(record, indent=2, sort_keys=True))
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    trainer.accelerator.wait_for_everyone()
    return out


def library_versions() -> dict[str, str]:
    import torch
    import transformers
    import trl

    from codefrontier import __version__

    return {"codefrontier_version": __version__, "torch_version": torch.__version__,
            "transformers_version": transformers.__version__, "trl_version": trl.__version__}
