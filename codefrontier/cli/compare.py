"""`compare`: where two workflow runs part ways, and their tables' differing rows."""

from __future__ import annotations

import argparse


def _compare(args: argparse.Namespace) -> int:
    from codefrontier.pipeline.compare import compare_runs

    same, lines = compare_runs(args.run_a, args.run_b, shown=args.rows)
    print("\n".join(lines))
    return 0 if same else 1


def register(commands) -> None:
    compare = commands.add_parser(
        "compare", help="compare two workflow runs: the first stage whose outputs differ, "
                        "and the tables' differing rows",
        description="Compares the outputs of two workflow runs stage by stage in the "
                    "workflow's order (problems, SFT data, initial weights, SFT checkpoint, "
                    "RL runs, merges, samples, verdicts, second attempts, tables) by their "
                    "content hashes (weights, table rows; not the provenance beside them, nor "
                    "the CPU time and memory a verdict measured), "
                    "and names the first stage that differs with both runs' hashes, the "
                    "machines their records name and the versions they differ in; then the "
                    "outputs only one run has and the rows in which the frontier, ensemble "
                    "and second-attempt tables differ. Exit status 0 when the runs are "
                    "identical, 1 when anything differs, 2 when a run is not a workflow root.")
    compare.add_argument("run_a", metavar="RUN_A",
                         help="a workflow root: the folder that holds results/")
    compare.add_argument("run_b", metavar="RUN_B", help="the other run's workflow root")
    compare.add_argument("--rows", type=int, default=5, metavar="N",
                         help="differing rows shown per table, by their key columns")
    compare.set_defaults(handler=_compare)
