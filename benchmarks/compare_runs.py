"""Do two workflow runs give the same outputs and tables? `codefrontier compare`:

    python benchmarks/compare_runs.py RUN_A RUN_B [--rows N]

RUN_A and RUN_B are workflow roots (the folders that hold results/). Names the first
stage whose outputs differ (content hashes, machines, versions), then each table's
row counts and differing rows (codefrontier/pipeline/compare.py); exit status 1 when
anything differs.
"""

from __future__ import annotations

import sys

from codefrontier.cli import main

if __name__ == "__main__":
    sys.exit(main(["compare", *sys.argv[1:]]))
