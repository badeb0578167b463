"""Supervised fine-tuning with TRL's SFTTrainer on prompt/completion pairs.

The data is TRL's conversational prompt-completion format (the output of
`codefrontier problems sft`); the loss covers the completion only. Resumes
from the last checkpoint in the work folder.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from codefrontier.tables import read_records
from codefrontier.train.common import train_and_save, trainer_config, work_dir_for

log = logging.getLogger("codefrontier.train.sft")

DEFAULTS = {
    "num_train_epochs": 3,
    "learning_rate": 2e-5,
    "per_device_train_batch_size": 4,
    "gradient_accumulation_steps": 1,
    "lr_scheduler_type": "cosine",
    "warmup_steps": 0.05,  # a float below 1 is a ratio of the total steps
    "max_length": 2048,
    "completion_only_loss": True,
    "logging_steps": 5,
    "save_strategy": "steps",
    "save_steps": 50,
    "save_total_limit": 2,
    "report_to": "none",
    "seed": 0,
    "dataloader_num_workers": 0,
}


def load_pairs(path: str | os.PathLike):
    from datasets import Dataset

    records = read_records(path)
    if not records or not {"prompt", "completion"} <= records[0].keys():
        raise ValueError(f"{path}: SFT data needs prompt and completion columns")
    return Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]}
                              for r in records])


def run_sft(model: str, data: str | os.PathLike, out: str | os.PathLike,
            overrides: dict | None = None, work_dir: str | os.PathLike | None = None) -> Path:
    """Fine-tune `model` (a folder or hub id) on `data`; the result is a save_pretrained folder."""
    from trl import SFTConfig, SFTTrainer

    from codefrontier.checkpoint_io import load_tokenizer

    out = Path(out)
    work = work_dir_for(out, work_dir)
    config = trainer_config(SFTConfig, DEFAULTS, overrides or {}, work)
    tokenizer = load_tokenizer(model)
    trainer = SFTTrainer(model=model, args=config, train_dataset=load_pairs(data),
                         processing_class=tokenizer)
    return train_and_save(trainer, work, out, model, [data], kind="sft")
