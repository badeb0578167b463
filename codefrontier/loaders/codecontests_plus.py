"""CodeContests+ (`ByteDance-Seed/Code-Contests-Plus`) in the judge's schema.

Each config is a folder of parquet parts (`ccplus_1x/part-*.parquet` for `1x`,
the config with one generated test set per problem; `2x`..`5x` carry more
tests). The full dataset is about 951 GB, so the parts are streamed row by row
and only the problems that pass the filters are kept. Fields of a row:

    id (str), source (str, e.g. "Codeforces"), title (str), description (str),
    time_limit (int, milliseconds), memory_limit (int, megabytes),
    validator (str), generator (str), generator_cmd (str),
    checker (str: a testlib C++ checker, or empty for exact token comparison),
    correct_submissions, incorrect_submissions (list of {code, language}),
    test_cases (list of {input, output}),
    true_positive_rate, true_negative_rate (float: test-set quality)

The judge compares tokens (floats within 1e-6). A problem whose checker does
more than that — accepts any of several valid answers, compares
case-insensitively, uses another float tolerance — would be judged wrongly, so
it is flagged as needing a special checker and skipped unless asked for. A
checker counts as plain when it is empty or when its `setName(...)` names one
of testlib's stock comparators that our comparison reproduces.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from codefrontier.loaders.hub import data_file_urls, read_rows
from codefrontier.problems.schema import Problem, Test

REPO = "ByteDance-Seed/Code-Contests-Plus"
CONFIGS = ("1x", "2x", "3x", "4x", "5x")
DEFAULT_CONFIG = "1x"  # `problems build --config` and a data entry without `config`

# setName(...) texts of testlib's stock checkers (wcmp, lcmp, ncmp, uncmp,
# fcmp, hcmp, icmp, rcmp6): token, line, integer and 1e-6 float comparisons.
PLAIN_CHECKER_NAMES = (
    "compare sequences of tokens",
    "compare files as sequence of tokens in lines",
    "compare files as sequence of lines",
    "compare ordered sequences of signed int",
    "compare two signed int",
    "compare two signed huge integers",
    "compare two sequences of doubles, max absolute or relative error = 1e-6",
    "single line",
)
_SET_NAME = re.compile(r'setName\s*\(\s*"([^"]*)"')

# CodeContests+ carries no difficulty label; a Codeforces-style rating, where
# a row has one, maps to ours, otherwise the problem counts as medium.
RATING_BANDS = ((1400, "easy"), (2000, "medium"))


def needs_special_checker(checker: str | None) -> bool:
    """True unless the checker is empty or one of testlib's stock comparators."""
    if not checker or not checker.strip():
        return False
    match = _SET_NAME.search(checker)
    return not (match and match.group(1).strip().startswith(PLAIN_CHECKER_NAMES))


def difficulty_of(row: dict) -> str:
    rating = row.get("rating") or row.get("cf_rating")
    if not rating:
        return "medium"
    for upper, label in RATING_BANDS:
        if rating < upper:
            return label
    return "hard"


def config_files(config: str) -> list[str]:
    if config not in CONFIGS:
        raise ValueError(f"unknown CodeContests+ config {config!r}: use one of {', '.join(CONFIGS)}")
    return [f"ccplus_{config}/*.parquet"]


def to_problem(row: dict) -> Problem:
    tests = tuple(Test(case["input"], case["output"]) for case in row["test_cases"])
    return Problem(
        problem_id=f"codecontests-plus/{row['id']}",
        title=row.get("title") or str(row["id"]),
        statement=row["description"],
        difficulty=difficulty_of(row),
        source=f"codecontests-plus/{(row.get('source') or 'unknown').lower()}",
        kind="stdin",
        time_limit_s=row["time_limit"] / 1000,
        memory_limit_mb=int(row["memory_limit"]),
        tests=tests,
    )


@dataclass
class LoadReport:
    """What the loader kept and why it left the rest out."""

    kept: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def summary(self) -> str:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))
        return f"kept {self.kept}, skipped {sum(self.skipped.values())}" + (f" ({reasons})" if reasons else "")


def iter_codecontests_plus(
    config: str = DEFAULT_CONFIG,
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | None = None,
    sources: set[str] | None = None,
    difficulties: set[str] | None = None,
    include_special_checkers: bool = False,
    report: LoadReport | None = None,
) -> Iterator[Problem]:
    """Stream the problems of a config that pass the filters, in file order."""
    report = report if report is not None else LoadReport()
    files = data_file_urls(REPO, config_files(config), data_dir)
    for row in read_rows("parquet", files, REPO, streaming=True, cache_dir=cache_dir):
        if sources and (row.get("source") or "").lower() not in sources:
            report.skip("other source")
            continue
        if not row["test_cases"]:
            report.skip("no tests")
            continue
        if not include_special_checkers and needs_special_checker(row.get("checker")):
            report.skip("special checker")
            continue
        problem = to_problem(row)
        if difficulties and problem.difficulty not in difficulties:
            report.skip("other difficulty")
            continue
        report.kept += 1
        yield problem


def load_codecontests_plus(limit: int | None = None, **filters) -> tuple[list[Problem], LoadReport]:
    """At most `limit` problems (all when None) and the load report."""
    report = LoadReport()
    problems = []
    for problem in iter_codecontests_plus(report=report, **filters):
        problems.append(problem)
        if limit is not None and len(problems) >= limit:
            break
    return problems, report
