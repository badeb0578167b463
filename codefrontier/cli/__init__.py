"""The `codefrontier` command line.

One module per stage registers its commands (`register(commands)`); each handler
turns the parsed options into one library call and prints a summary line. Errors a
user can fix (a missing file, a bad value) end the command with status 2 and one line.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from codefrontier import __version__
from codefrontier.cli import analysis, audit, data, evaluate, merge, plan, train

STAGES = (data, train, merge, evaluate, analysis, audit, plan)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codefrontier",
                                     description="Correctness-efficiency frontiers of "
                                                 "RL-trained code models.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--provenance-config", metavar="JSON",
                        help="the workflow's config slice for this step, kept in the "
                             "output's provenance (set by the Snakemake rules)")
    commands = parser.add_subparsers(dest="command", required=True)
    for stage in STAGES:
        stage.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        if args.provenance_config:
            from codefrontier.base.provenance import set_config_slice

            set_config_slice(json.loads(args.provenance_config))
        return args.handler(args)
    except (FileNotFoundError, FileExistsError, ValueError, KeyError, RuntimeError) as error:
        print(f"codefrontier {args.command}: error: {error}", file=sys.stderr)
        return 2
