"""`python -m codefrontier.cli`: the command line, as the `codefrontier` script runs it."""

import sys

from codefrontier.cli import run

sys.exit(run())
