"""Do two workflow runs give the same tables, row for row?

    python benchmarks/compare_runs.py RUN_A RUN_B [--tables frontier ensemble repair]

RUN_A and RUN_B are workflow roots (the folders that hold results/). Each table is
read from both, its rows sorted by their key columns, and every column compared
(floats exactly: the same inputs and seeds must give the same bits). Prints, per
table, the row counts and how many rows differ, with the keys of the first few; the
exit status is 1 when anything differs or a table is missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from codefrontier.base import layout

TABLES = {"frontier": layout.FRONTIER, "ensemble": layout.ENSEMBLE, "repair": layout.REPAIR_TABLE}
KEYS = ("model", "setting", "checkpoint", "difficulty", "pool", "k", "first_failure")


def sorted_rows(path: Path) -> tuple[pd.DataFrame, list[str]]:
    table = pd.read_parquet(path)
    keys = [column for column in KEYS if column in table.columns]
    return table.sort_values(keys).reset_index(drop=True), keys


def differing_rows(a: pd.DataFrame, b: pd.DataFrame) -> list[int]:
    """Positions whose rows differ in any column (lists and NaN compared as text)."""
    return [i for i in range(min(len(a), len(b)))
            if not a.iloc[i].astype(str).equals(b.iloc[i].astype(str))]


def compare(run_a: Path, run_b: Path, name: str, shown: int = 5) -> bool:
    paths = [run / TABLES[name] for run in (run_a, run_b)]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        print(f"{name}: missing {', '.join(missing)}")
        return False
    (a, keys), (b, _) = sorted_rows(paths[0]), sorted_rows(paths[1])
    same_columns = list(a.columns) == list(b.columns)
    differ = differing_rows(a, b) if same_columns else list(range(len(a)))
    print(f"{name}: {len(a)} and {len(b)} rows, {len(differ)} differ"
          + ("" if same_columns else " (the columns differ)"))
    for i in differ[:shown]:
        print("   ", ", ".join(f"{key}={a.iloc[i][key]}" for key in keys))
    return same_columns and len(a) == len(b) and not differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=tuple(TABLES))
    args = parser.parse_args()
    results = [compare(args.run_a, args.run_b, name) for name in args.tables]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
