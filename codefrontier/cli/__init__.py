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
from codefrontier.base.threads import hold_to_job_cores
from codefrontier.cli import analysis, audit, compare, data, evaluate, export, merge, plan, train
from codefrontier.cli.configfiles import ConfigFiles

STAGES = (data, train, merge, evaluate, analysis, export, audit, compare, plan)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="codefrontier",
                    description="Correctness-efficiency frontiers of RL-trained code models.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    # set by the Snakemake rules: the workflow's config slice for this step, kept in the
    # output's provenance (not for people, so not in the help)
    parser.add_argument("--provenance-config", metavar="JSON", help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for stage in STAGES:
        stage.register(commands)
    describe_subcommands(parser)
    return parser


class HelpFormatter(argparse.HelpFormatter):
    """Each option's help ends with its default, where it has one worth naming and the
    help does not name it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        # by identity: 0 and 0.0 equal False, and are defaults worth naming
        unnamed = default is None or default is False or default is argparse.SUPPRESS \
            or default == []
        if ("default" in text or unnamed
                or (not action.option_strings and action.nargs != "?")):
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """The command line's parsers: HelpFormatter for every one (sub-commands are made by
    their parent's class); the targets given after --configfile put in their place."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        for action in self._actions:
            if isinstance(action, ConfigFiles):
                action.finish(self, namespace)
        return namespace, extras


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """The parser's sub-commands: (name, parser, one-line help)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            found += [(name, sub, helps.get(name) or "") for name, sub in action.choices.items()]
    return found


def describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """A sub-command without a description of its own is described by its one-line help."""
    for _, sub, help_text in subcommands(parser):
        if not sub.description and help_text:
            sub.description = help_text[0].upper() + help_text[1:] + "."
        describe_subcommands(sub)


def main(argv: list[str] | None = None) -> int:
    """Run one command line (the process's own when argv is None)."""
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


def run() -> int:
    """The `codefrontier` script and `python -m codefrontier.cli`: hold the process to its
    job's cores before any handler loads torch, then run its command line. (main() alone,
    as tests and benchmarks call it in their own process, leaves that process's
    environment as it is.)"""
    hold_to_job_cores()
    return main()
