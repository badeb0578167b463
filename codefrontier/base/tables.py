"""Reading and writing record tables as parquet or JSON Lines, chosen by extension."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

PARQUET_SUFFIXES = {".parquet", ".pq"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}


def table_format(path: str | os.PathLike) -> str:
    """Return "parquet" or "jsonl" for a path, or raise a ValueError naming the accepted suffixes."""
    suffix = Path(path).suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    accepted = ", ".join(sorted(PARQUET_SUFFIXES | JSONL_SUFFIXES))
    raise ValueError(f"{path}: unknown table format {suffix!r}; use one of {accepted}")


def read_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read every row of a parquet or JSONL file as a dict."""
    path = Path(path)
    fmt = table_format(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if fmt == "parquet":
        return pq.read_table(path).to_pylist()
    records = []
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{line_number}: invalid JSON ({error.msg})") from None
    return records


def write_records(
    records: Iterable[Mapping[str, Any]],
    path: str | os.PathLike,
    schema: pa.Schema | None = None,
    metadata: Mapping[str, str] | None = None,
) -> None:
    """Write rows atomically (temporary file, then rename) as parquet or JSONL.

    `schema` fixes parquet column types (so an empty table still has its columns);
    `metadata` goes into the parquet footer and is ignored for JSONL.
    """
    path = Path(path)
    fmt = table_format(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    rows = [dict(r) for r in records]
    try:
        if fmt == "parquet":
            table = pa.Table.from_pylist(rows, schema=schema)
            if metadata:
                merged = dict(table.schema.metadata or {})
                merged.update({k.encode(): v.encode() for k, v in metadata.items()})
                table = table.replace_schema_metadata(merged)
            pq.write_table(table, tmp)
        else:
            with tmp.open("w", encoding="utf-8") as handle:
                for row in rows:
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """Key-value metadata from a parquet footer (empty for JSONL)."""
    if table_format(path) != "parquet":
        return {}
    raw = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in raw.items() if not k.startswith(b"ARROW")}
