"""The paper's findings under several seeds: the main job once per seed, then each
finding's verdict and figure per setting and seed.

    python benchmarks/seeds.py RUNS [--seeds 0 1 2] [--cores 2] [--report-only]
        [-- SNAKEMAKE_ARGS ...]

Runs `snakemake -c CORES -d RUNS/seed-N --config seed=N` for each seed (the config key
that seeds model init, SFT, every GRPO run and sampling; the problems stay the same), so
a run that was stopped resumes where it was, then prints one Markdown table: finding ×
model / setting → the verdict under each seed, and below it each verdict's figure.
Arguments after `--` go to every snakemake call (e.g. `--configfile=configs/tiny-findings.yaml`).
With `--report-only` nothing runs: the table is made from the runs already there.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd

from codefrontier.analysis.curve import setting_groups
from codefrontier.analysis.findings import TITLES, findings
from codefrontier.base.layout import CLUSTERS, ENSEMBLE, FRONTIER

REPO = Path(__file__).resolve().parents[1]


def run_seed(runs: Path, seed: int, cores: int, extra: list[str]) -> None:
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
               "-c", str(cores), "-d", str(runs / f"seed-{seed}"), "--config", f"seed={seed}",
               *extra]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def seed_findings(run: Path) -> dict[tuple[str, str], list]:
    """(model, setting) -> the five findings of one run's tables."""
    ensemble, clusters = pd.read_parquet(run / ENSEMBLE), pd.read_parquet(run / CLUSTERS)
    return {(model, setting): findings(rows, clusters, ensemble, model, setting)
            for (model, setting), rows in setting_groups(pd.read_parquet(run / FRONTIER))}


def report(by_seed: dict[int, dict[tuple[str, str], list]]) -> str:
    seeds = sorted(by_seed)
    groups = list(dict.fromkeys(key for found in by_seed.values() for key in found))
    header = ["finding", "model / setting", *(f"seed {s}" for s in seeds)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    figures = []
    for number in TITLES:
        for model, setting in groups:
            cells = []
            for seed in seeds:
                found = by_seed[seed].get((model, setting))
                item = found[number - 1] if found else None
                cells.append(item.verdict if item else "—")
                if item and item.figure:
                    figures.append(f"- {number}. {model} / {setting}, seed {seed}: {item.figure}")
            lines.append(f"| {number}. {TITLES[number]} | {model} / {setting} | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\nFigures:\n\n" + "\n".join(figures) + "\n"


def main() -> None:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, help="one working directory per seed goes here")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(own)
    if not args.report_only:
        for seed in args.seeds:
            run_seed(args.runs, seed, args.cores, extra)
    missing = [s for s in args.seeds if not (args.runs / f"seed-{s}" / FRONTIER).exists()]
    if missing:
        sys.exit(f"no {FRONTIER} under {args.runs} for seed(s) {missing}: run them first")
    print(report({s: seed_findings(args.runs / f"seed-{s}") for s in args.seeds}))


if __name__ == "__main__":
    main()
