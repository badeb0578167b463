"""Print the options a workflow rule gives its `codefrontier` command, one word per line,
so that benchmark scripts rerun a step exactly as the config does it.

    python benchmarks/default_options.py sample --setting tool_use
    python benchmarks/default_options.py rl --reward k2 --setting reasoning
    python benchmarks/default_options.py sft --config configs/smoke.yaml

In bash: `mapfile -t options < <(python benchmarks/default_options.py sample --setting agentic)`.
The options are those of `codefrontier.pipeline.workflow.command_options`, which the Snakefile's
rules use too; paths and thread counts are the caller's.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from codefrontier.pipeline import workflow as wf
from codefrontier.pipeline.configfiles import compose

TREE = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rule", help="problems, sft_data, model_init, sft, rl, sample or second_attempt")
    parser.add_argument("--config", type=Path, nargs="+", default=[TREE / "config.yaml"],
                        help="config files, as for snakemake --configfile (grids, overlays)")
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--setting", default="reasoning")
    parser.add_argument("--reward", default="kinf", help="rl: the run's reward name")
    parser.add_argument("--split", default="train", help="problems: the split")
    args = parser.parse_args(argv)
    config = compose(args.config, TREE / "config.yaml").values
    wildcards = {"model": args.model, "setting": args.setting, "reward": args.reward,
                 "split": args.split}
    try:
        options = wf.command_options(config, args.rule.replace("-", "_"), **wildcards)
    except KeyError as error:
        parser.error(str(error))
    print("\n".join(shlex.split(options)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
