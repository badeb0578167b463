"""Supervised fine-tuning with TRL's SFTTrainer.

The data is the output of `codefrontier problems sft`: whole conversations
(`messages`, JSON) with the tools they use (`tools`, JSON), in TRL's conversational
language-modeling format; the loss covers the assistant turns only (TRL renders the
chat template with generation markers), never the prompt or a tool's result.
TRL's prompt-completion format (`prompt`, `completion` columns) is accepted too, with
the loss on the completion. Resumes from the last checkpoint in the work folder.
"""

from __future__ import annotations

import json
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
    "logging_steps": 5,
    "save_strategy": "steps",
    "save_steps": 50,
    "save_total_limit": 2,
    "report_to": "none",
    "seed": 0,
    "dataloader_num_workers": 0,
}


def load_examples(path: str | os.PathLike):
    """The SFT data as a datasets.Dataset, and the loss it takes: `assistant_only` for
    conversations, `completion_only` for prompt-completion pairs."""
    from datasets import Dataset, Features, Json, List, Value

    records = read_records(path)
    columns = records[0].keys() if records else set()
    if "messages" in columns:
        # Json keeps each message as written: tool calls with different argument names
        # would otherwise be merged into one struct with null fields
        features = Features({"messages": List(Json()), "tools": Value("string")})
        rows = [{"messages": json.loads(r["messages"]), "tools": r.get("tools")}
                for r in records]
        return Dataset.from_list(rows, features=features), "assistant_only"
    if {"prompt", "completion"} <= columns:
        return Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]}
                                  for r in records]), "completion_only"
    raise ValueError(f"{path}: SFT data needs a messages column (conversations) or prompt "
                     "and completion columns")


def run_sft(model: str, data: str | os.PathLike, out: str | os.PathLike,
            overrides: dict | None = None, work_dir: str | os.PathLike | None = None) -> Path:
    """Fine-tune `model` (a folder or hub id) on `data`; the result is a save_pretrained folder."""
    from trl import SFTConfig, SFTTrainer

    from codefrontier.checkpoint_io import load_tokenizer

    out = Path(out)
    work = work_dir_for(out, work_dir)
    dataset, loss = load_examples(data)
    defaults = {**DEFAULTS, f"{loss}_loss": True}
    config = trainer_config(SFTConfig, defaults, overrides or {}, work)
    tokenizer = load_tokenizer(model)
    trainer = SFTTrainer(model=model, args=config, train_dataset=dataset,
                         processing_class=tokenizer)
    return train_and_save(trainer, work, out, model, [data], kind="sft")
