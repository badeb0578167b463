"""Do two checkouts plan the same jobs for every config?

    python benchmarks/compare_plans.py CHECKOUT_A CHECKOUT_B [--ignore-provenance]

Runs `snakemake -n -p -F` of each checkout's Snakefile, in an empty folder, for its
config.yaml and every configs/*.yaml, and compares the jobs as sets: each job's rule,
inputs, outputs, log, benchmark, resources and shell command (Snakemake prints the jobs
in no fixed order). Each checkout's own code is imported (PYTHONPATH). Prints, per
config, the job counts and the jobs only one side plans, with the first of them;
`--ignore-provenance` compares commands without their `--provenance-config` argument.
The exit status is 1 when a plan differs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

JOB_START = re.compile(r"\n(?=(?:local)?rule \w+:)")
KEPT = re.compile(r"\s*((local)?rule |input:|output:|log:|benchmark:|resources:|Shell command:)")
PROVENANCE = re.compile(r"--provenance-config '[^']*' ")


def plan(checkout: Path, config: Path) -> str:
    """The dry run's output, with its folder and the checkout's path made neutral."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-m", "snakemake", "-s", str(checkout / "Snakefile"), "-d", folder,
             "-n", "-p", "-F", "--configfile", str(config)],
            capture_output=True, text=True, cwd=folder,
            env={**os.environ, "PYTHONPATH": str(checkout)})
        if done.returncode != 0:
            raise SystemExit(f"{checkout}: the dry run of {config.name} failed:\n"
                             f"{done.stderr[-2000:]}")
        return done.stdout.replace(folder, "WORKDIR").replace(str(checkout), "CHECKOUT")


def jobs(text: str, ignore_provenance: bool) -> set[str]:
    found = set()
    for block in JOB_START.split(text)[1:]:
        lines = [line.strip() for line in block.splitlines() if KEPT.match(line)]
        job = "\n".join(lines)
        found.add(PROVENANCE.sub("", job) if ignore_provenance else job)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--ignore-provenance", action="store_true")
    args = parser.parse_args()
    a, b = args.a.resolve(), args.b.resolve()
    names = ["config.yaml", *sorted(p.name for p in (a / "configs").glob("*.yaml"))]
    differ = 0
    for name in names:
        relative = Path(name) if name == "config.yaml" else Path("configs") / name
        if not (b / relative).exists():
            print(f"{name}: only in {a}")
            differ += 1
            continue
        first = jobs(plan(a, a / relative), args.ignore_provenance)
        second = jobs(plan(b, b / relative), args.ignore_provenance)
        only_a, only_b = first - second, second - first
        print(f"{name}: {len(first)} jobs | {len(second)} jobs; only in A {len(only_a)}, "
              f"only in B {len(only_b)}")
        for label, extra in (("A", only_a), ("B", only_b)):
            if extra:
                print(f"  first job only in {label}:\n    " +
                      sorted(extra)[0].replace("\n", "\n    "))
        differ += bool(only_a or only_b)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
