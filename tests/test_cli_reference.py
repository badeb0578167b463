"""The command line documents itself: docs/cli.md is the parser's help, and every command
and option says what it is."""

import argparse
from pathlib import Path

from codefrontier.cli.reference import commands, reference

REPO = Path(__file__).resolve().parents[1]


def test_docs_cli_md_is_the_parsers_help():
    assert (REPO / "docs" / "cli.md").read_text() == reference(), \
        "docs/cli.md is stale: python -m codefrontier.cli.reference > docs/cli.md"


def test_every_command_is_described_and_every_option_helped():
    missing = []
    for path, parser in commands():
        name = " ".join(path)
        if not parser.description:
            missing.append(f"{name}: no description")
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction,
                                   argparse._SubParsersAction)):
                continue
            if not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
    assert missing == []


def test_the_workflows_own_option_stays_out_of_the_help():
    assert "--provenance-config" not in reference()
