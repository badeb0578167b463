"""`judge`, `sample`, `second-attempt sample`: samples of a checkpoint in a setting, judged."""

from __future__ import annotations

import argparse
from collections import Counter

from codefrontier.base.options import add_options, flag, from_args
from codefrontier.cli.analysis import add_second_attempt_table
from codefrontier.evaluate.second_attempt import SecondAttemptOptions
from codefrontier.generation.options import SampleOptions
from codefrontier.sandbox.isolation import LEVELS
from codefrontier.settings.registry import SETTINGS, default_setting, limit_options


def add_episode_options(parser) -> None:
    """--setting and every setting's episode limits (settings/registry.py)."""
    parser.add_argument("--setting", default=default_setting(), choices=tuple(SETTINGS),
                        help="inference setting")
    group = parser.add_argument_group("episode limits (default: the setting's own)")
    for option, owners in limit_options().items():
        first = next(iter(owners.values()))
        group.add_argument(flag(option), type=type(first.default),
                           help="; ".join(f"{setting}: {limit.metadata['help']} "
                                          f"(default {limit.default})"
                                          for setting, limit in owners.items()))


def episode_limits(args: argparse.Namespace) -> dict:
    """The episode limits given on the command line, for the chosen setting."""
    limits = {}
    for option, owners in limit_options().items():
        value = getattr(args, option)
        if value is None:
            continue
        if args.setting not in owners:
            raise ValueError(f"{flag(option)} is a limit of the {' and '.join(owners)} setting, "
                             f"not of {args.setting}")
        limits[option] = value
    return limits


def _judge(args: argparse.Namespace) -> int:
    from codefrontier.judge.files import judge_files

    results = judge_files(args.problems, args.samples, args.out, workers=args.workers,
                          all_tests=args.all_tests, max_isolation=args.max_isolation,
                          progress=not args.quiet)
    counts = Counter(r.outcome for r in results)
    summary = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    print(f"judged {len(results)} samples -> {args.out}: {summary}")
    return 0


def _sample(args: argparse.Namespace) -> int:
    from codefrontier.evaluate.sampling import sample_checkpoint

    options = from_args(SampleOptions, args)
    out = sample_checkpoint(args.model, args.problems, args.out, setting=args.setting,
                            backend=options.backend, sampling=options.sampling(options.n),
                            backend_options=options.backend_options(), limit=options.limit,
                            progress=not args.quiet, episode_limits=episode_limits(args),
                            judge_workers=args.judge_workers)
    print(f"samples of {args.model} ({args.setting}, n={options.n}) -> {out}")
    return 0


def _second_attempt_sample(args: argparse.Namespace) -> int:
    from codefrontier.evaluate.second_attempt import sample_second_attempts

    options = from_args(SecondAttemptOptions, args)
    out = sample_second_attempts(args.model, args.problems, args.samples, args.verdicts,
                                 args.out, backend=options.backend,
                                 sampling=options.sampling(1),
                                 backend_options=options.backend_options(),
                                 max_feedback_tokens=options.max_feedback_tokens,
                                 judge_workers=args.judge_workers, progress=not args.quiet)
    print(f"second attempts of {args.model} -> {out}")
    return 0


def _add_judge(commands) -> None:
    judge = commands.add_parser(
        "judge", help="run samples against their problems' tests in the sandbox",
        description="Extract each sample's program, run it against its problem's tests in "
                    "ascending input length, and write one row of verdicts per sample.")
    judge.add_argument("--problems", required=True, help="problems (.parquet or .jsonl)")
    judge.add_argument("--samples", required=True,
                       help="samples (.parquet or .jsonl): problem_id, sample_id, completion[, code]")
    judge.add_argument("--out", required=True,
                       help="verdicts (.parquet); until it is written, the verdicts made so far "
                            "are kept in OUT.work/, and a rerun judges only the other samples")
    judge.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    judge.add_argument("--all-tests", action="store_true",
                       help="go on past wrong answers and errors instead of stopping at the "
                            "first failure (a TLE or MLE still ends the run: longer tests "
                            "count as failed)")
    judge.add_argument("--max-isolation", default=LEVELS[0], choices=LEVELS,
                       help="strongest sandbox level to try (default: the strongest available)")
    judge.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    judge.set_defaults(handler=_judge)


def _add_model_inputs(parser, judge_workers_help: str) -> None:
    parser.add_argument("--model", required=True, help="a model folder or hub id")
    parser.add_argument("--problems", required=True, help="problems (parquet)")
    parser.add_argument("--judge-workers", type=int, default=1, help=judge_workers_help)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_sample(commands) -> None:
    sample = commands.add_parser("sample", help="sample completions from a checkpoint")
    add_episode_options(sample)
    _add_model_inputs(sample, "tool_use: sandbox workers that run the model's tool calls")
    add_options(sample.add_argument_group("generation"), SampleOptions)
    sample.add_argument("--out", required=True,
                        help="samples file (.parquet); until it is written, the finished "
                             "batches (episode chunks) are kept in OUT.work/, and a rerun "
                             "samples only the others")
    sample.set_defaults(handler=_sample)


def _add_second_attempt(commands) -> None:
    second = commands.add_parser(
        "second-attempt", help="second attempts at failed samples, given why they failed "
                               "(at evaluation; repair training is `train grpo --repair`)")
    second_commands = second.add_subparsers(dest="second_attempt_command", required=True)
    attempt = second_commands.add_parser(
        "sample", help="one second attempt per optimization or correctness failure",
        description="The failed program goes back to the model with feedback: the hidden "
                    "tests' verdict, decade and limits, and its runs on the statement's "
                    "examples (docs/results.md, second attempts). Output: the samples schema.")
    _add_model_inputs(attempt, "sandbox workers that run the programs on the examples")
    attempt.add_argument("--samples", required=True, help="the first attempts' samples")
    attempt.add_argument("--verdicts", required=True, help="the first attempts' verdicts")
    add_options(attempt.add_argument_group("generation and feedback"), SecondAttemptOptions)
    attempt.add_argument("--out", required=True,
                         help="second attempts (.parquet); until it is written, the finished "
                              "batches are kept in OUT.work/, as `sample` keeps them")
    attempt.set_defaults(handler=_second_attempt_sample)
    add_second_attempt_table(second_commands)


def register(commands) -> None:
    _add_judge(commands)
    _add_sample(commands)
    _add_second_attempt(commands)
