"""A tiny embedded model fine-tuned until it reproduces one episode per setting.

Its rollouts call the real tools (the judge's sandbox, a bubblewrap terminal), and
at temperature 0 it answers its training episode word for word: the model of the
tests that train GRPO in multi-turn settings and of those that compare backends.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from codefrontier.base.tables import write_records
from codefrontier.judge import JudgePool
from codefrontier.models.embedded import EmbeddedModelSpec, init_embedded_model
from codefrontier.problems.schema import Problem, Test, save_problems
from codefrontier.settings import registry
from codefrontier.sftdata.demonstrations import demonstration

STATEMENT = ("Print a + b.\n\nExample 1\nInput:\n2 3\nExpected output:\n5\n\n"
             "Example 2\nInput:\n10 -4\nExpected output:\n6")
PROGRAM = "a, b = map(int, input().split())\nprint(a + b)"
SPEC = EmbeddedModelSpec(vocab_size=600, hidden_size=96, intermediate_size=192,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1)
SETTINGS = ("reasoning", "tool_use", "agentic")


def sum_problem() -> Problem:
    return Problem("sum", "Sum", STATEMENT, "easy", "test", "stdin",
                   tests=(Test("2 3\n", "5"), Test("10 -4\n", "6"), Test("7 8\n", "15")))


def conversation(setting_name: str, problem: Problem, pool) -> dict:
    """The SFT record of one episode of `problem` in a setting, its tool results real."""
    from transformers.utils import get_json_schema

    from codefrontier.settings.environments import end_episode
    from codefrontier.settings.episodes import environment_tools

    entry = registry.setting_entry(setting_name)
    setting, turns = entry.build(), demonstration(setting_name).turns
    record = {"problem_id": problem.problem_id, "variant": "efficient", "setting": setting_name}
    if setting_name == "reasoning":
        played = turns(problem, "I add the two numbers.", PROGRAM)
        return {**record, "messages": json.dumps(setting.messages(problem) + played),
                "tools": json.dumps([])}
    environment = setting.environment({problem.problem_id: problem}, pool)
    environment.reset(problem_id=problem.problem_id)
    try:
        played = turns(problem, "I add the two numbers.", PROGRAM, environment)
        tools = [get_json_schema(t) for t in environment_tools(environment)]
    finally:
        end_episode(environment)
    return {**record, "messages": json.dumps(setting.messages(problem) + played),
            "tools": json.dumps(tools)}


def memorise(folder: Path, settings=SETTINGS, steps: int = 150) -> Path:
    """Problems in `folder`/train.parquet and a model (its SFT checkpoint, returned) that
    reproduces one episode of each setting."""
    from codefrontier.train.sft import run_sft

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    problem = sum_problem()
    save_problems([problem], folder / "train.parquet")
    with JudgePool(workers=1) as pool:
        records = [conversation(s, problem, pool) for s in settings]
    write_records(records, folder / "sft.parquet")
    model = init_embedded_model(folder / "init", [folder / "train.parquet", folder / "sft.parquet"],
                                SPEC)
    return run_sft(str(model), folder / "sft.parquet", folder / "sft",
                   {"max_steps": steps, "learning_rate": 3e-3, "per_device_train_batch_size": 2,
                    "warmup_steps": 0, "logging_steps": 50, "save_strategy": "no"})
