"""`frontier`, `ensemble`, `second-attempt table`, `claims`, `plots`, `show`, `timings`, `rl-log`,
`training`, `training-plots`: the tables, reports and charts of a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codefrontier.base.layout import BENCHMARKS, FRONTIER


def _endpoints(args: argparse.Namespace) -> dict[str, tuple[str, str]]:
    return {model: (low, high) for model, low, high in args.merge or []}


def _frontier(args: argparse.Namespace) -> int:
    from codefrontier.analysis.frontier import write_frontier

    rows = write_frontier(args.verdicts, args.problems, _endpoints(args), args.out, args.seed)
    print(f"{rows} frontier rows from {len(args.verdicts)} checkpoints -> {args.out}")
    if args.clusters:
        from codefrontier.analysis.clusters import write_clusters

        rows = write_clusters(args.verdicts, args.problems, args.seed, args.clusters)
        print(f"{rows} cluster rows -> {args.clusters}")
    return 0


def _ensemble(args: argparse.Namespace) -> int:
    from codefrontier.analysis.ensemble import write_ensemble

    rows = write_ensemble(args.verdicts, _endpoints(args), args.second_attempts, args.out,
                          args.seed)
    print(f"{rows} ensemble rows from {len(args.verdicts)} checkpoints -> {args.out}")
    return 0


def _second_attempt_table(args: argparse.Namespace) -> int:
    from codefrontier.analysis.second_attempt_table import write_second_attempt_table

    print(f"second-attempt rates -> {write_second_attempt_table(args.verdicts, args.out, args.seed)}")
    return 0


def _claims(args: argparse.Namespace) -> int:
    from codefrontier.analysis.claims import write_claims

    report, warnings = write_claims(args.frontier, args.clusters, args.ensemble, args.merges,
                                    args.second_attempts, args.out)
    print(report)
    for warning in warnings:
        print(f"WARNING: {warning}", file=sys.stderr)
    return 0


def _plots(args: argparse.Namespace) -> int:
    from codefrontier.analysis.plots import write_plots

    for path in write_plots(args.frontier, args.ensemble, args.out_dir):
        print(path)
    return 0


def _show(args: argparse.Namespace) -> int:
    import pandas as pd

    from codefrontier.analysis.show import frontier_markdown

    print(frontier_markdown(pd.read_parquet(args.frontier), args.setting or None), end="")
    return 0


def _timings(args: argparse.Namespace) -> int:
    from codefrontier.analysis.timings import render, stage_times

    print(render(stage_times(args.benchmarks)))
    return 0


def _rl_log(args: argparse.Namespace) -> int:
    from codefrontier.train.rl_log import run_summary

    print("\n".join(run_summary(Path(run), args.window) for run in args.runs), end="")
    return 0


def _training(args: argparse.Namespace) -> int:
    from codefrontier.train.training_log import write_training

    rows = write_training(args.runs, args.out, args.seed)
    print(f"{rows} steps of {len(args.runs)} training runs -> {args.out}")
    return 0


def _training_plots(args: argparse.Namespace) -> int:
    from codefrontier.analysis.training_plots import write_training_plots

    for path in write_training_plots(args.training, args.out_dir, args.charts):
        print(path)
    return 0


def add_second_attempt_table(second_commands) -> None:
    """`second-attempt table`, under the `second-attempt` command that `cli.evaluate`
    registers."""
    table = second_commands.add_parser(
        "table", help="how often a second attempt corrects a failure, by the first failure's "
                      "type (docs/results.md)")
    table.add_argument("--verdicts", nargs="+", required=True,
                       help="first attempts' results/<model>/<setting>/<ckpt>/verdicts.parquet, "
                            "each with second-attempt/verdicts.parquet beside it")
    table.add_argument("--out", required=True, help="output parquet")
    add_first_seed(table)
    table.set_defaults(handler=_second_attempt_table)


def add_first_seed(parser) -> None:
    parser.add_argument("--seed", type=int, default=0,
                        help="the grid's first seed: the seed of the runs named by their "
                             "model alone (seed N's runs are <model>@seedN): the tables' "
                             "seed column")


def _add_tables(commands) -> None:
    aggregate = argparse.ArgumentParser(add_help=False)
    aggregate.add_argument("--verdicts", nargs="+", required=True,
                           help="results/<model>/<setting>/<ckpt>/verdicts.parquet files")
    aggregate.add_argument("--merge", nargs=3, action="append", metavar=("MODEL", "LOW", "HIGH"),
                           help="a model's merge endpoints (RL rewards); repeat per model")
    aggregate.add_argument("--out", required=True, help="output parquet")
    add_first_seed(aggregate)
    frontier = commands.add_parser("frontier", parents=[aggregate],
                                   help="outcome rates per model x setting x checkpoint x "
                                        "difficulty (docs/results.md)")
    frontier.add_argument("--problems", required=True, help="the evaluation problems")
    frontier.add_argument("--clusters", metavar="PARQUET",
                          help="also write the cluster table: outcome counts per model x "
                               "setting x seed x checkpoint x cluster (a bundled family, or a "
                               "real dataset's problem), what the findings pair and resample")
    frontier.set_defaults(handler=_frontier)
    ensemble = commands.add_parser("ensemble", parents=[aggregate],
                                   help="pass@k of checkpoints and pools at equal budget")
    ensemble.add_argument("--second-attempts", nargs="*", default=[], metavar="PATH",
                          help="second attempts' results/<model>/<setting>/<ckpt>/"
                               "second-attempt/verdicts.parquet: a second-attempt:<ckpt> pool "
                               "each (two samples an episode)")
    ensemble.set_defaults(handler=_ensemble)


def _add_reports(commands) -> None:
    claims = commands.add_parser(
        "claims", help="check the headline claims (endpoint separation, interpolation trend, "
                       "extrapolation, reach, ensembles) on a run's tables",
        description="Writes a Markdown report; claims that do not hold are reported with "
                    "their figures. Warns when the RL endpoints are indistinguishable.")
    claims.add_argument("--frontier", required=True, help="the frontier table (parquet)")
    claims.add_argument("--clusters", required=True,
                        help="the cluster table (parquet): the findings' paired comparisons")
    claims.add_argument("--ensemble", required=True, help="the ensemble table (parquet)")
    claims.add_argument("--merges", nargs="*", default=[], metavar="PATH",
                        help="merge records (results/<model>/<setting>/merge/a<alpha>.json) or "
                             "merged folders: their provenance gives ‖θ_high − θ_low‖")
    claims.add_argument("--second-attempts",
                        help="the second-attempt table (results/second_attempts.parquet), "
                             "if any")
    claims.add_argument("--out", required=True, help="the report (.md)")
    claims.set_defaults(handler=_claims)
    plots = commands.add_parser("plots", help="Altair charts (.html and .png)")
    plots.add_argument("--frontier", required=True, help="the frontier table (parquet)")
    plots.add_argument("--ensemble", required=True, help="the ensemble table (parquet)")
    plots.add_argument("--out-dir", required=True,
                       help="folder for the charts: <chart>.png and <chart>.html each")
    plots.set_defaults(handler=_plots)
    show = commands.add_parser(
        "show", help="the frontier table as Markdown: rates ± SE and frontier distances per "
                     "model x setting")
    show.add_argument("frontier", nargs="?", default=FRONTIER, help="the frontier table")
    show.add_argument("--setting", action="append", default=[],
                      help="this setting only (repeat for several)")
    show.set_defaults(handler=_show)
    timings = commands.add_parser(
        "timings", help="where a workflow run's time went, per stage (from its benchmark files)")
    timings.add_argument("benchmarks", nargs="?", default=BENCHMARKS,
                         help="the run's folder of Snakemake benchmark files")
    timings.set_defaults(handler=_timings)
    rl_log = commands.add_parser(
        "rl-log", help="a GRPO run's reward, outcome mix and (repair runs) first attempts per "
                       "window of steps, from its work folder's logs")
    rl_log.add_argument("runs", nargs="+", help="run folders (their OUT.work holds the logs)")
    rl_log.add_argument("--window", type=int, default=5, help="reward calls per row (default: 5)")
    rl_log.set_defaults(handler=_rl_log)


def _add_training(commands) -> None:
    training = commands.add_parser(
        "training", help="every SFT and GRPO run's loss, reward, outcome mix, groups without "
                         "signal, completion length, KL and learning rate per step, from "
                         "their work folders' logs (docs/results.md)")
    training.add_argument("--runs", nargs="+", required=True, metavar="FOLDER",
                          help="the runs' output folders, results/<model>/sft and "
                               "results/<model>/<setting>/rl/<reward> (OUT.work beside each "
                               "holds the logs)")
    training.add_argument("--out", required=True, help="output parquet")
    add_first_seed(training)
    training.set_defaults(handler=_training)
    plots = commands.add_parser(
        "training-plots", help="training curves: a chart per setting of its GRPO runs and "
                               "one of the SFT runs (.html and .png)")
    plots.add_argument("--training", required=True, help="the training table (parquet)")
    plots.add_argument("--out-dir", required=True,
                       help="folder for the charts: <setting>.png and .html, sft.png and .html")
    plots.add_argument("--charts", nargs="+", metavar="NAME",
                       help="these charts (settings, sft) even where the table has no rows "
                            "for them (default: those the table has rows for)")
    plots.set_defaults(handler=_training_plots)


def register(commands) -> None:
    _add_tables(commands)
    _add_reports(commands)
    _add_training(commands)
