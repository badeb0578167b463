"""The spread of stated input sizes in contest benchmarks, and the bundled suite's scales.

Reads docs/data/contest-constraints.csv (per problem: the largest stated bound on a
size variable and the input bytes it implies, extracted from the statements of
LiveCodeBench v5+v6 and of a CodeContests sample by benchmarks/contest_constraints.py)
and prints, per dataset, the share of problems whose largest input lies in each decade
of bytes; then the suite's instance scales (codefrontier.suite.spec.SCALE_SHARES), which
are LiveCodeBench's counts with every decade from 10^5 bytes up folded into the suite's
largest, 10^5, and those below 10^2 bytes into its smallest, 10^2.

    python benchmarks/constraint_spread.py
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from pathlib import Path

from codefrontier.suite.spec import SCALE_SHARES

DATA = Path(__file__).resolve().parents[1] / "docs" / "data" / "contest-constraints.csv"


def byte_decade(row: dict) -> int:
    return math.floor(math.log10(float(row["est_max_input_bytes"])))


def suite_scale(row: dict) -> int:
    """The suite's scale for a problem: its byte decade within the suite's scales (from
    10^2 bytes, where plausible bugs have room to show, to 10^5)."""
    return min(max(SCALE_SHARES), max(min(SCALE_SHARES), byte_decade(row)))


def sized_rows(dataset_prefix: str) -> list[dict]:
    with DATA.open() as handle:
        return [row for row in csv.DictReader(handle)
                if row["dataset"].startswith(dataset_prefix) and row["status"] == "ok"]


def main() -> None:
    print("| dataset | problems with a size bound | " +
          " | ".join(f"10^{d}" for d in range(0, 8)) + " |")
    print("|---|---|" + "---|" * 8)
    for dataset in ("LiveCodeBench", "CodeContests"):
        rows = sized_rows(dataset)
        counts = Counter(min(7, byte_decade(row)) for row in rows)
        print(f"| {dataset} | {len(rows)} | " +
              " | ".join(f"{100 * counts[d] / len(rows):.0f}%" for d in range(0, 8)) + " |")
    measured = Counter(suite_scale(row) for row in sized_rows("LiveCodeBench"))
    print("\nsuite scale (largest test decade): LiveCodeBench count -> SCALE_SHARES")
    for scale in sorted(SCALE_SHARES):
        print(f"  10^{scale} bytes: {measured[scale]:>4} -> {SCALE_SHARES.get(scale, 0)}")
    if dict(measured) != SCALE_SHARES:
        raise SystemExit("SCALE_SHARES differs from the counts in the data")


if __name__ == "__main__":
    main()
