"""How often a finished run's checkpoints repeat a program: the judge runs each distinct
program once per set of tests and limits, so this is the judging that copies save.

    python benchmarks/distinct_programs.py [RESULTS]     # default: results

Per setting: the judged programs (samples with a program), how many are distinct within
their checkpoint (what the judge runs) and across all checkpoints, and the same counts
for the programs whose first failure is TLE or MLE (each of which costs the time limit).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from codefrontier.judge.extract import extract_code


def program(code, completion: str) -> str | None:
    return code if isinstance(code, str) else extract_code(completion)


def count(setting_dir: Path) -> dict[str, int]:
    everywhere, slow_everywhere = set(), set()
    totals = dict.fromkeys(("programs", "distinct in checkpoint", "slow", "slow distinct in checkpoint"), 0)
    for samples_path in sorted(setting_dir.glob("*/samples.parquet")):
        samples = pd.read_parquet(samples_path)
        verdicts = pd.read_parquet(samples_path.with_name("verdicts.parquet"))
        mine, slow = set(), set()
        for sample, verdict in zip(samples.itertuples(), verdicts.itertuples(), strict=True):
            text = program(sample.code, sample.completion)
            if text is None:
                continue
            key = (sample.problem_id, text)
            mine.add(key)
            totals["programs"] += 1
            failed = verdict.first_failure
            if pd.notna(failed) and verdict.verdicts[int(failed)] in ("TLE", "MLE"):
                slow.add(key)
                totals["slow"] += 1
        totals["distinct in checkpoint"] += len(mine)
        totals["slow distinct in checkpoint"] += len(slow)
        everywhere |= mine
        slow_everywhere |= slow
    return {**totals, "distinct in run": len(everywhere), "slow distinct in run": len(slow_everywhere)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default="results", type=Path)
    args = parser.parse_args()
    rows = {}
    for setting_dir in sorted(args.results.glob("*/*")):
        if setting_dir.is_dir() and any(setting_dir.glob("*/samples.parquet")):
            rows[f"{setting_dir.parent.name}/{setting_dir.name}"] = count(setting_dir)
    print(pd.DataFrame(rows).T.to_markdown())


if __name__ == "__main__":
    main()
