"""Supervised fine-tuning with TRL's SFTTrainer.

The data is the output of `codefrontier problems sft`: whole conversations
(`messages`, JSON) with the tools they use (`tools`, JSON), whose first
`context_turns` messages are context (without the column: the messages before the
first assistant turn). The loss covers the assistant turns after the context only
(TRL renders the chat template with generation markers), never the prompt or a
tool's result. Where some conversation's context goes beyond its prompt (a masked
failed attempt), every conversation goes to TRL as a prompt-completion pair split
after its context, and the loss takes the completion and assistant masks together;
otherwise TRL gets whole conversations (its language-modeling format), which also
train the newline after the first assistant header. TRL's plain prompt-completion
format (`prompt`, `completion` columns) is accepted too, with the loss on the
completion. Resumes from the last checkpoint in the work folder.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from codefrontier.base.tables import read_records
from codefrontier.train.common import (
    start_submission,
    train_and_save,
    trainer_config,
    work_dir_for,
)
from codefrontier.train.lm_head import SFT_OUTPUTS, compact_lm_head
from codefrontier.train.submissions import Submission

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
    "logging_first_step": True,  # the loss curve starts at step 1 (results/training.parquet)
    "save_strategy": "steps",
    "save_steps": 50,
    "save_total_limit": 2,
    "report_to": "none",
    "seed": 0,
    "dataloader_num_workers": 0,
}


def prompt_length(messages: list[dict]) -> int:
    """The messages before the first assistant turn."""
    return next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))


def context_length(messages: list[dict], context_turns: int | None) -> int:
    """Where a conversation's trained part starts: after `context_turns` messages, or
    before its first assistant turn when the data do not say."""
    if context_turns is None:
        context_turns = prompt_length(messages)
    if not 0 < context_turns < len(messages) or messages[context_turns]["role"] != "assistant":
        raise ValueError(f"context_turns {context_turns}: the trained part of a conversation "
                         f"must start with an assistant turn after the prompt "
                         f"({len(messages)} messages)")
    return context_turns


def load_examples(path: str | os.PathLike):
    """The SFT data as a datasets.Dataset, and the losses it takes: `assistant_only` for
    whole conversations, `completion_only` for prompt-completion pairs, both for
    conversations split after a context longer than their prompt."""
    from datasets import Dataset, Features, Json, List, Value

    records = read_records(path)
    columns = records[0].keys() if records else set()
    if "messages" in columns:
        # Json keeps each message as written: tool calls with different argument names
        # would otherwise be merged into one struct with null fields
        conversations = [json.loads(r["messages"]) for r in records]
        splits = [context_length(messages, record.get("context_turns"))
                  for messages, record in zip(conversations, records, strict=True)]
        if splits == [prompt_length(messages) for messages in conversations]:
            features = Features({"messages": List(Json()), "tools": Value("string")})
            rows = [{"messages": messages, "tools": record.get("tools")}
                    for messages, record in zip(conversations, records, strict=True)]
            return Dataset.from_list(rows, features=features), ("assistant_only",)
        features = Features({"prompt": List(Json()), "completion": List(Json()),
                             "tools": Value("string")})
        rows = [{"prompt": messages[:split], "completion": messages[split:],
                 "tools": record.get("tools")}
                for messages, split, record in zip(conversations, splits, records, strict=True)]
        return Dataset.from_list(rows, features=features), ("completion_only", "assistant_only")
    if {"prompt", "completion"} <= columns:
        return Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]}
                                  for r in records]), ("completion_only",)
    raise ValueError(f"{path}: SFT data needs a messages column (conversations) or prompt "
                     "and completion columns")


def sft_trainer(model: str, data: str | os.PathLike, work: Path,
                overrides: dict | None = None):
    """TRL's SFTTrainer for `model` on `data`, its checkpoints in `work`; its train dataset
    is tokenized, with `labels` -100 wherever no loss is taken."""
    from trl import SFTConfig, SFTTrainer

    from codefrontier.models.checkpoint_io import load_tokenizer

    dataset, losses = load_examples(data)
    defaults = {**DEFAULTS, **{f"{loss}_loss": True for loss in losses}}
    config = trainer_config(SFTConfig, defaults, overrides or {}, work)
    trainer = SFTTrainer(model=model, args=config, train_dataset=dataset,
                         processing_class=load_tokenizer(model))
    compact_lm_head(trainer.model, outputs=SFT_OUTPUTS)
    return trainer


def run_sft(model: str, data: str | os.PathLike, out: str | os.PathLike,
            overrides: dict | None = None, work_dir: str | os.PathLike | None = None,
            keep_checkpoints: bool = False, submission: Submission | None = None) -> Path:
    """Fine-tune `model` (a folder or hub id) on `data`; the result is a save_pretrained
    folder (the trainer checkpoints are removed then, unless `keep_checkpoints`). Stopped
    before its `submission`'s deadline or by a signal, it raises StoppedToResubmit."""
    out = Path(out)
    work = work_dir_for(out, work_dir)
    deadline = start_submission(work, submission)
    trainer = sft_trainer(model, data, work, overrides)
    return train_and_save(trainer, work, out, model, [data], keep_checkpoints=keep_checkpoints,
                          deadline=deadline, kind="sft")
