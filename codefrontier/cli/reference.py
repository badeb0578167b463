"""The command-line reference (docs/cli.md), written from the parser itself:

    python -m codefrontier.cli.reference > docs/cli.md

tests/test_cli_reference.py checks that docs/cli.md is what this writes, and that every
command has a description and every option a help text.
"""

from __future__ import annotations

import os
import sys

from codefrontier.cli import build_parser, subcommands

WIDTH = 96  # the help's line width (argparse reads $COLUMNS)


def commands(parser=None, path: tuple[str, ...] = ("codefrontier",)):
    """(path, parser) of the command line and of every sub-command, depth first."""
    parser = parser or build_parser()
    yield path, parser
    for name, sub, _ in subcommands(parser):
        yield from commands(sub, (*path, name))


def reference() -> str:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        sections = ["# Command-line reference", "",
                    "Every `codefrontier` command's `--help`, as the parser prints it "
                    "(`python -m codefrontier.cli.reference > docs/cli.md` writes this "
                    "page; a test checks that it is current).", ""]
        for path, parser in commands():
            sections += [f"## {' '.join(path)}", "", "```", parser.format_help().rstrip(),
                         "```", ""]
        return "\n".join(sections)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


if __name__ == "__main__":
    sys.stdout.write(reference())
