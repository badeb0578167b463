"""LiveCodeBench (`livecodebench/code_generation_lite`) in the judge's schema.

The repository holds one JSON Lines file per release increment (test.jsonl for
release_v1, test2.jsonl for the problems added in release_v2, ...). Its loading
script needs `trust_remote_code`, which recent `datasets` refuse, so the data
files are read directly. Fields (all strings unless noted):

    question_title, question_content, platform (leetcode|codeforces|atcoder),
    question_id, contest_id, contest_date (ISO), starter_code,
    difficulty (easy|medium|hard), public_test_cases (JSON list of
    {input, output, testtype: stdin|functional}), private_test_cases (the same
    JSON, or base64 of zlib of a pickled JSON string), metadata (JSON; func_name
    for functional problems)

LiveCodeBench has no per-problem limits; the defaults follow its runner.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import zlib
from datetime import date, datetime

from codefrontier.loaders.hub import data_file_urls, read_rows
from codefrontier.problems.schema import Problem, Test

REPO = "livecodebench/code_generation_lite"
INCREMENTS = ["test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl",
              "test6.jsonl"]
DEFAULT_RELEASE = "release_v6"  # `problems build --release` and a data entry without `release`
DEFAULT_TIME_LIMIT_S = 6.0
DEFAULT_MEMORY_LIMIT_MB = 1024


def release_files(version: str) -> list[str]:
    """Data files of a version tag: release_vN (cumulative), vN (one increment) or vM_vN."""
    def number(tag: str) -> int:
        if not (tag.startswith("v") and tag[1:].isdigit() and 1 <= int(tag[1:]) <= len(INCREMENTS)):
            raise ValueError(f"unknown LiveCodeBench version {version!r}: use release_v1.."
                             f"release_v{len(INCREMENTS)}, v1..v{len(INCREMENTS)} or vM_vN")
        return int(tag[1:])

    if version.startswith("release_"):
        return INCREMENTS[:number(version.removeprefix("release_"))]
    first, _, last = version.partition("_")
    return INCREMENTS[number(first) - 1:number(last or first)]


class _StringsOnly(pickle.Unpickler):
    """The private tests are a pickled str: refuse any object that needs a class."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from test data")


def decode_private_tests(field: str) -> list[dict]:
    try:
        return json.loads(field)
    except json.JSONDecodeError:
        raw = zlib.decompress(base64.b64decode(field.encode("utf-8")))
        return json.loads(_StringsOnly(io.BytesIO(raw)).load())


def _contest_date(row: dict) -> date:
    return datetime.fromisoformat(str(row["contest_date"])).date()


def to_problem(row: dict, time_limit_s: float = DEFAULT_TIME_LIMIT_S,
               memory_limit_mb: int = DEFAULT_MEMORY_LIMIT_MB) -> Problem:
    cases = json.loads(row["public_test_cases"]) + decode_private_tests(row["private_test_cases"])
    functional = any(case.get("testtype") == "functional" for case in cases)
    metadata = json.loads(row.get("metadata") or "{}")
    return Problem(
        problem_id=f"livecodebench/{row['question_id']}",
        title=row["question_title"],
        statement=row["question_content"],
        difficulty=row["difficulty"],
        source=f"livecodebench/{row['platform']}",
        kind="call" if functional else "stdin",
        func_name=metadata.get("func_name", "") if functional else "",
        starter_code=row.get("starter_code") or "",
        time_limit_s=time_limit_s,
        memory_limit_mb=memory_limit_mb,
        tests=tuple(Test(case["input"], case["output"]) for case in cases),
    )


def load_livecodebench(
    version: str = DEFAULT_RELEASE,
    start_date: date | None = None,
    end_date: date | None = None,
    difficulties: set[str] | None = None,
    platforms: set[str] | None = None,
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | None = None,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    memory_limit_mb: int = DEFAULT_MEMORY_LIMIT_MB,
) -> list[Problem]:
    """Problems of a release whose contest date lies in [start_date, end_date],
    filtered by difficulty and platform, in file order."""
    files = data_file_urls(REPO, release_files(version), data_dir)
    problems = []
    for row in read_rows("json", files, REPO, streaming=False, cache_dir=cache_dir):
        when = _contest_date(row)
        if (start_date and when < start_date) or (end_date and when > end_date):
            continue
        if difficulties and row["difficulty"] not in difficulties:
            continue
        if platforms and row["platform"] not in platforms:
            continue
        problems.append(to_problem(row, time_limit_s, memory_limit_mb))
    return problems
