"""The problem schema shared by the judge, the data builders and the workflow.

A problem is one row of a parquet or JSONL file:

    problem_id      str    unique id, e.g. "bundled/two-sum" or "lcb/abc301_a"
    title           str
    statement       str    the task as shown to the model
    difficulty      str    easy | medium | hard
    source          str    bundled | livecodebench | codecontests-plus | ...
    kind            str    stdin (read stdin, write stdout) | call (LeetCode style) |
                           function (HumanEval style: a top-level function checked by
                           the problem's own assert-based check code)
    func_name       str    call: the method of `Solution` to call; function: the function
    starter_code    str    may be empty
    time_limit_s    float  CPU seconds per test
    memory_limit_mb int    MiB of address space per test, on top of the interpreter
    tests           list of {input: str, output: str}, in any order

Call-based tests follow LiveCodeBench: `input` holds one JSON value per line, the
positional arguments of `Solution().<func_name>`; `output` is the JSON of the
return value. A function problem's test holds check code in `input` (it defines
`check(candidate)`, which asserts on the candidate's results, as HumanEval's tests
do) and nothing in `output`: the test passes when `check(<func_name>)` returns.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow as pa

from codefrontier.base.tables import read_records, write_records

DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("stdin", "call", "function")
BUNDLED_PREFIX = "bundled/"


def cluster_of(problem_id: str) -> str:
    """The unit a problem was drawn from the population in, which the findings' standard
    errors cluster on and their bootstraps resample: a bundled problem's family (its
    instances share one task: bundled/two-sum/eval-0 -> bundled/two-sum), any other
    problem itself (a LiveCodeBench or CodeContests+ id names no group)."""
    if problem_id.startswith(BUNDLED_PREFIX):
        return "/".join(problem_id.split("/")[:2])
    return problem_id



@dataclass(frozen=True)
class Test:
    __test__ = False  # not a pytest test class

    input: str
    output: str

    @property
    def input_len(self) -> int:
        """Input length as design.md defines it: bytes of stdin (or of the JSON arguments)."""
        return len(self.input.encode("utf-8"))


@dataclass(frozen=True)
class Problem:
    problem_id: str
    title: str
    statement: str
    difficulty: str
    source: str
    kind: str
    tests: tuple[Test, ...]
    time_limit_s: float = 2.0
    memory_limit_mb: int = 256
    func_name: str = ""
    starter_code: str = ""

    def __post_init__(self) -> None:
        where = f"problem {self.problem_id!r}"
        if not self.problem_id:
            raise ValueError("problem_id must not be empty")
        if self.difficulty not in DIFFICULTIES:
            raise ValueError(f"{where}: difficulty {self.difficulty!r} is not one of {DIFFICULTIES}")
        if self.kind not in KINDS:
            raise ValueError(f"{where}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind in ("call", "function") and not self.func_name.isidentifier():
            raise ValueError(f"{where}: {self.kind} problems need func_name, got "
                             f"{self.func_name!r}")
        if not self.time_limit_s > 0:
            raise ValueError(f"{where}: time_limit_s must be positive, got {self.time_limit_s}")
        if self.memory_limit_mb <= 0:
            raise ValueError(f"{where}: memory_limit_mb must be positive, got {self.memory_limit_mb}")
        if not self.tests:
            raise ValueError(f"{where}: has no tests")
        if self.kind == "call":
            for index, test in enumerate(self.tests):
                _check_call_test(where, index, test)

    def tests_by_input_length(self) -> list[Test]:
        """Tests in ascending input length; ties keep their stored order."""
        return sorted(self.tests, key=lambda t: t.input_len)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Problem:
        missing = {"problem_id", "statement", "difficulty", "kind", "tests"} - record.keys()
        if missing:
            pid = record.get("problem_id", "<no id>")
            raise ValueError(f"problem {pid!r}: missing fields {sorted(missing)}")
        tests = tuple(Test(str(t["input"]), str(t["output"])) for t in record["tests"])
        return cls(
            problem_id=str(record["problem_id"]),
            title=str(record.get("title") or ""),
            statement=str(record["statement"]),
            difficulty=str(record["difficulty"]),
            source=str(record.get("source") or ""),
            kind=str(record["kind"]),
            func_name=str(record.get("func_name") or ""),
            starter_code=str(record.get("starter_code") or ""),
            time_limit_s=float(record.get("time_limit_s") or 2.0),
            memory_limit_mb=int(record.get("memory_limit_mb") or 256),
            tests=tests,
        )

    def to_record(self) -> dict[str, Any]:
        record = asdict(self)
        record["tests"] = [asdict(t) for t in self.tests]
        return record


def _check_call_test(where: str, index: int, test: Test) -> None:
    try:
        for line in test.input.splitlines():
            json.loads(line)
        json.loads(test.output)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{where}, test {index}: call-based tests hold one JSON value per input line "
            f"and a JSON output ({error.msg})"
        ) from None


PROBLEM_SCHEMA = pa.schema(
    [
        ("problem_id", pa.string()),
        ("title", pa.string()),
        ("statement", pa.string()),
        ("difficulty", pa.string()),
        ("source", pa.string()),
        ("kind", pa.string()),
        ("tests", pa.list_(pa.struct([("input", pa.string()), ("output", pa.string())]))),
        ("time_limit_s", pa.float64()),
        ("memory_limit_mb", pa.int64()),
        ("func_name", pa.string()),
        ("starter_code", pa.string()),
    ]
)


@dataclass
class ProblemSet:
    """Problems keyed by id, in file order."""

    problems: dict[str, Problem] = field(default_factory=dict)

    def __getitem__(self, problem_id: str) -> Problem:
        return self.problems[problem_id]

    def __contains__(self, problem_id: object) -> bool:
        return problem_id in self.problems

    def __len__(self) -> int:
        return len(self.problems)

    def __iter__(self):
        return iter(self.problems.values())


def load_problems(path: str | os.PathLike) -> ProblemSet:
    """Load and validate problems; duplicate ids are an error."""
    problems: dict[str, Problem] = {}
    for record in read_records(path):
        problem = Problem.from_record(record)
        if problem.problem_id in problems:
            raise ValueError(f"{path}: duplicate problem_id {problem.problem_id!r}")
        problems[problem.problem_id] = problem
    return ProblemSet(problems)


def test_inputs(paths: Iterable[str | os.PathLike]) -> set[str]:
    """Every test input of the problems in these files."""
    return {test.input for path in paths for problem in load_problems(path)
            for test in problem.tests}


def save_problems(problems: list[Problem] | ProblemSet, path: str | os.PathLike,
                  metadata: dict[str, str] | None = None) -> None:
    write_records([p.to_record() for p in problems], path, schema=PROBLEM_SCHEMA,
                  metadata=metadata)
