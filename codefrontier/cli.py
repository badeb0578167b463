"""The `codefrontier` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter

from codefrontier import __version__


def _judge(args: argparse.Namespace) -> int:
    from codefrontier.judge.files import judge_files

    results = judge_files(args.problems, args.samples, args.out, workers=args.workers,
                          all_tests=args.all_tests, max_isolation=args.max_isolation,
                          progress=not args.quiet)
    counts = Counter(r.outcome for r in results)
    summary = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    print(f"judged {len(results)} samples -> {args.out}: {summary}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codefrontier", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)

    judge = commands.add_parser(
        "judge", help="run samples against their problems' tests in the sandbox",
        description="Extract each sample's program, run it against its problem's tests in "
                    "ascending input length, and write one row of verdicts per sample.")
    judge.add_argument("--problems", required=True, help="problems (.parquet or .jsonl)")
    judge.add_argument("--samples", required=True,
                       help="samples (.parquet or .jsonl): problem_id, sample_id, completion[, code]")
    judge.add_argument("--out", required=True, help="verdicts (.parquet)")
    judge.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    judge.add_argument("--all-tests", action="store_true",
                       help="run every test instead of stopping at the first failure")
    judge.add_argument("--max-isolation", default="namespaces",
                       choices=("namespaces", "userns", "rlimits"),
                       help="strongest sandbox level to try (default: the strongest available)")
    judge.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    judge.set_defaults(handler=_judge)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return args.handler(args)
    except (FileNotFoundError, ValueError, KeyError) as error:
        print(f"codefrontier {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
