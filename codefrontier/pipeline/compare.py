"""`codefrontier compare RUN_A RUN_B`: where two workflow runs part ways.

RUN_A and RUN_B are workflow roots (the folders that hold results/). Their outputs are
taken stage by stage in the workflow's order (STAGES: problems, SFT data, ..., tables)
and each output present in both runs is compared by its content hash (`output_hash`:
a checkpoint's weights, a table's rows, never the provenance record beside them, which
names the machine; verdicts without the columns that measure each test's run, which
move from run to run: judge.files.MEASURED_COLUMNS). The first stage with a difference
is reported with, for each output that differs, both hashes, the machines that made
them and the versions (code, Python, libraries) their records differ in: every later
stage is expected to differ from there on, and is only named. Then outputs that only
one run has, and the tables' differing rows (sorted by their key columns, every column
compared exactly: the same inputs and seeds must give the same bits).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from codefrontier.base import layout
from codefrontier.base.provenance import (
    RECORDED_LIBRARIES,
    UnreadableProvenance,
    checkpoint_sha256,
    file_sha256,
    read_provenance,
)
from codefrontier.judge.files import MEASURED_COLUMNS
from codefrontier.pipeline.audit import describe_machine, other_versions

SFT_DATA = layout.DATA.fill(split="sft")
TABLES = (layout.FRONTIER, layout.CLUSTERS, layout.ENSEMBLE, layout.SECOND_ATTEMPT_TABLE)
# the columns a table's rows are sorted by, where it has them
KEYS = ("model", "setting", "seed", "checkpoint", "cluster", "difficulty", "pool", "k",
        "first_failure")
# the versions a record names (`<name>_version`) that are shown where two records differ
VERSIONS = ("code", "codefrontier", "python", *RECORDED_LIBRARIES)


@dataclass(frozen=True)
class Stage:
    """A step of the workflow and the layout paths (PathTemplates or plain paths) its
    outputs lie at, `exclude` left out; `measured`: table columns left out of the
    comparison."""

    name: str
    paths: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    measured: tuple[str, ...] = ()

    def outputs(self, root: Path) -> list[str]:
        """The stage's outputs present under the workflow root `root`, relative to it."""
        found = set()
        for pattern in self.paths:
            for path in root.glob(re.sub(r"\{\w+\}", "*", pattern)):
                relative = path.relative_to(root).as_posix()
                # a name starting with "." is a temporary of a step that is writing it
                if path.name.startswith(".") or relative in self.exclude:
                    continue
                if not isinstance(pattern, layout.PathTemplate) or pattern.parse(relative):
                    found.add(relative)
        return sorted(found)


STAGES = (
    Stage("problems", (layout.DATA,), exclude=(SFT_DATA,)),
    Stage("SFT data", (SFT_DATA,)),
    Stage("initial weights", (layout.INIT_FOLDER,)),
    Stage("SFT checkpoint", (layout.SFT_FOLDER,)),
    Stage("RL runs", (layout.RL_FOLDER,)),
    Stage("merges", (layout.MERGE_FOLDER, layout.MERGE_RECORD)),
    Stage("samples", (layout.SAMPLES,)),
    Stage("verdicts", (layout.VERDICTS,), measured=MEASURED_COLUMNS),
    Stage("second-attempt samples", (layout.SECOND_ATTEMPT_SAMPLES,)),
    Stage("second-attempt verdicts", (layout.SECOND_ATTEMPT_VERDICTS,),
          measured=MEASURED_COLUMNS),
    Stage("tables", TABLES),
)


def output_hash(path: Path, measured: tuple[str, ...] = ()) -> str:
    """An output's content hash: a checkpoint folder's weights and JSON files
    (provenance.checkpoint_sha256), a parquet table's schema and rows less its
    `measured` columns (`table_sha256`), the folder a merge record (layout.MERGE_RECORD)
    names, any other file's sha256."""
    if path.is_dir():
        return checkpoint_sha256(path)
    if path.suffix == ".parquet":
        return table_sha256(path, without=measured)
    if layout.MERGE_RECORD.parse(path):
        return str(_record(path).get("checkpoint_sha256"))
    return file_sha256(path)


def table_sha256(path: str | os.PathLike, without: tuple[str, ...] = ()) -> str:
    """sha256 of a parquet table's schema and rows, its footer's metadata and the
    columns `without` excepted: the provenance record there names the machine and the
    code, so equal rows made on two machines are two different files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path).replace_schema_metadata(None)
    table = table.drop_columns([name for name in without if name in table.column_names])
    table = table.combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return hashlib.sha256(sink.getvalue()).hexdigest()


def _record(path: Path) -> dict:
    """An output's provenance record ({} when it has none or it cannot be read)."""
    try:
        return read_provenance(path) or {}
    except UnreadableProvenance:
        return {}


@dataclass(frozen=True)
class Difference:
    """An output both runs have whose contents differ, with both runs' records."""

    path: str
    hashes: tuple[str, str]
    records: tuple[dict, dict]

    def lines(self) -> list[str]:
        out = [f"  {self.path}"]
        for run, digest, record in zip("AB", self.hashes, self.records, strict=True):
            made_on = record.get("machine")
            where = describe_machine(made_on) if isinstance(made_on, dict) else "not recorded"
            out.append(f"    {run}: {digest}  made on {where}")
        versions = other_versions(*self.records, names=VERSIONS)
        if versions:
            out.append(f"    versions: {', '.join(versions)}")
        return out


@dataclass
class StageComparison:
    """One stage of two runs: the outputs both have, those only the first or only the
    second has, and the ones of both that differ."""

    stage: Stage
    compared: list[str]
    only: tuple[list[str], list[str]]
    differ: list[Difference] = field(default_factory=list)


def compare_stage(stage: Stage, run_a: Path, run_b: Path) -> StageComparison:
    """A stage's outputs in both runs, compared by their content hashes."""
    outputs = [set(stage.outputs(run)) for run in (run_a, run_b)]
    result = StageComparison(stage, sorted(outputs[0] & outputs[1]),
                             (sorted(outputs[0] - outputs[1]), sorted(outputs[1] - outputs[0])))
    for relative in result.compared:
        paths = (run_a / relative, run_b / relative)
        hashes = tuple(output_hash(path, stage.measured) for path in paths)
        if hashes[0] != hashes[1]:
            result.differ.append(Difference(relative, hashes,
                                            tuple(_record(path) for path in paths)))
    return result


def sorted_rows(path: Path):
    """A table's rows sorted by its key columns (KEYS), and those columns."""
    import pandas as pd

    table = pd.read_parquet(path)
    keys = [column for column in KEYS if column in table.columns]
    return table.sort_values(keys).reset_index(drop=True), keys


def differing_rows(a, b) -> list[int]:
    """Positions whose rows differ in any column (lists and NaN compared as text)."""
    return [i for i in range(min(len(a), len(b)))
            if not a.iloc[i].astype(str).equals(b.iloc[i].astype(str))]


def compare_table(run_a: Path, run_b: Path, table: str, shown: int = 5) -> tuple[bool, list[str]]:
    """Whether a table (a layout path) has the same rows in both runs, and the lines
    saying so: the row counts, how many differ and the keys of the first `shown`. A
    table neither run has is equal (that run made no such table)."""
    name = Path(table).stem
    paths = [run / table for run in (run_a, run_b)]
    missing = [str(path) for path in paths if not path.exists()]
    if len(missing) == 2:
        return True, [f"{name}: in neither run"]
    if missing:
        return False, [f"{name}: missing {missing[0]}"]
    (a, keys), (b, _) = sorted_rows(paths[0]), sorted_rows(paths[1])
    same_columns = list(a.columns) == list(b.columns)
    differ = differing_rows(a, b) if same_columns else list(range(len(a)))
    lines = [f"{name}: {len(a)} and {len(b)} rows, {len(differ)} differ"
             + ("" if same_columns else " (the columns differ)")]
    lines += ["    " + ", ".join(f"{key}={a.iloc[i][key]}" for key in keys)
              for i in differ[:shown]]
    return same_columns and len(a) == len(b) and not differ, lines


def compare_runs(run_a: str | os.PathLike, run_b: str | os.PathLike,
                 shown: int = 5) -> tuple[bool, list[str]]:
    """Whether two workflow runs have equal outputs and tables, and the report's lines
    (module docstring). FileNotFoundError when a root holds no results/."""
    runs = [Path(run) for run in (run_a, run_b)]
    for run in runs:
        if not (run / layout.RESULTS).is_dir():
            raise FileNotFoundError(f"{run} holds no {layout.RESULTS}/: give a workflow root, "
                                    f"the folder the workflow ran in")
    stages = [compare_stage(stage, *runs) for stage in STAGES]
    lines = _stage_lines(stages, runs)
    same_tables = True
    for table in TABLES:
        same, table_lines = compare_table(*runs, table, shown)
        same_tables &= same
        lines += table_lines
    same = same_tables and not any(s.differ or s.only[0] or s.only[1] for s in stages)
    compared = sum(len(s.compared) for s in stages)
    lines.append(f"compared {compared} outputs of {runs[0]} and {runs[1]}: "
                 + ("identical" if same else "they differ"))
    return same, lines


def _stage_lines(stages: list[StageComparison], runs: list[Path]) -> list[str]:
    """The first stage that differs, with its differences; the later ones by name; the
    outputs only one run has."""
    differing = [s for s in stages if s.differ]
    lines = []
    if differing:
        first = differing[0]
        lines += [f"first difference: {first.stage.name}, {len(first.differ)} of "
                  f"{len(first.compared)} outputs",
                  *(line for difference in first.differ for line in difference.lines())]
        if differing[1:]:
            lines.append("differing later: " + ", ".join(
                f"{s.stage.name} ({len(s.differ)} of {len(s.compared)})" for s in differing[1:]))
    else:
        lines.append("no output both runs have differs")
    for run, index in zip(runs, (0, 1), strict=True):
        alone = [path for s in stages for path in s.only[index]]
        if alone:
            lines.append(f"only in {run}: {', '.join(alone)}")
    return lines
