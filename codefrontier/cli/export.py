"""`export inspect`: a run's samples as Inspect logs, for Inspect's log viewer."""

from __future__ import annotations

import argparse

from codefrontier.cli.analysis import add_first_seed


def _inspect(args: argparse.Namespace) -> int:
    from codefrontier.analysis.inspect_export import write_inspect_logs

    written = write_inspect_logs(args.results, args.out_dir, args.verdicts, args.problems,
                                 args.seed)
    print(f"{len(written)} Inspect logs -> {args.out_dir} (inspect view --log-dir "
          f"{args.out_dir})")
    return 0


def register(commands) -> None:
    export = commands.add_parser("export", help="a run's results in other tools' formats")
    formats = export.add_subparsers(dest="format", required=True, metavar="FORMAT")
    inspect = formats.add_parser(
        "inspect", help="every checkpoint's samples as an Inspect log (.eval), for "
                        "`inspect view` (needs the inspect extra: pip install -e '.[inspect]')",
        description="Writes one Inspect log per model x setting x checkpoint: each sample's "
                    "prompt, its whole episode as messages (tool calls as Inspect tool calls "
                    "with their results), the judged program as the answer, the outcome as "
                    "the score with every test's verdict, input length, CPU time and memory "
                    "against the limits, and the problem's title, difficulty and limits; "
                    "the log's metrics are the checkpoint's outcome rates, its metadata the "
                    "checkpoint's provenance (kind, reward, alpha, merge endpoints, frontier "
                    "distances). Logs are listed by setting, then checkpoint. Needs "
                    "inspect-ai: pip install -e '.[inspect]'.")
    inspect.add_argument("results", metavar="RESULTS",
                         help="a run's results folder (results/)")
    inspect.add_argument("out_dir", metavar="OUT_DIR",
                         help="folder for the logs: <run>/<n>-<setting>/<nn>-<checkpoint>.eval")
    inspect.add_argument("--verdicts", nargs="+", metavar="PATH",
                         help="these checkpoints' results/<model>/<setting>/<ckpt>/"
                              "verdicts.parquet only (default: every one under RESULTS)")
    inspect.add_argument("--problems", metavar="PATH",
                         help="the evaluation problems (default: RESULTS/data/eval.parquet)")
    add_first_seed(inspect)
    inspect.set_defaults(handler=_inspect)
