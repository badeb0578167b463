"""Which answer modes a run's checkpoints write, and how each mode's samples end.

The SFT data opens every answer with one of a few plans (a sentence for an efficient
or a slow program, or the repair conversations' bare "My program:"), so the first line
of a sample's first assistant turn names the mode it was drawn from. Per checkpoint
and mode: the samples, their outcomes, and where correctness and optimization failures
first fail (the input-length decade of the first failing test):

    python benchmarks/answer_modes.py RUN [--setting reasoning] [--model tiny] \
        [--checkpoints sft rl-k2 rl-kinf]

RUN is a main job's directory (its results/<model>/<setting>/<checkpoint>/ holds
samples.parquet and verdicts.parquet).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

MODE_CHARS = 40


def first_answer_line(sample: pd.Series) -> str:
    """The first line of the sample's first assistant turn (the completion's, in a
    single-turn setting)."""
    transcript = sample.get("transcript")
    text = sample["completion"] or ""
    if transcript is not None and len(transcript):
        text = next((m["content"] or "" for m in transcript if m["role"] == "assistant"), text)
    stripped = text.strip()
    return stripped.splitlines()[0][:MODE_CHARS] if stripped else "(empty)"


def first_failing_decade(verdict: pd.Series) -> str:
    failure = verdict["first_failure"]
    if failure is None or (isinstance(failure, float) and math.isnan(failure)):
        return ""
    index = int(failure)
    return f"{verdict['verdicts'][index]} at 10^{int(math.log10(max(1, verdict['input_lens'][index])))}"


def modes_table(folder: Path) -> pd.DataFrame:
    samples = pd.read_parquet(folder / "samples.parquet")
    verdicts = pd.read_parquet(folder / "verdicts.parquet")
    joined = samples.merge(verdicts, on=["problem_id", "sample_id"], validate="one_to_one")
    joined["mode"] = joined.apply(first_answer_line, axis=1)
    joined["fails"] = joined.apply(first_failing_decade, axis=1)
    table = pd.crosstab(joined["mode"], joined["outcome"])
    table.insert(0, "samples", table.sum(axis=1))
    table["first failures"] = joined.groupby("mode")["fails"].agg(
        lambda fails: ", ".join(f"{name} ×{count}" for name, count
                                in fails[fails != ""].value_counts().items()))
    return table.sort_values("samples", ascending=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path)
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--setting", default="reasoning")
    parser.add_argument("--checkpoints", nargs="+", default=["sft", "rl-k2", "rl-kinf"])
    args = parser.parse_args()
    for checkpoint in args.checkpoints:
        folder = args.run / "results" / args.model / args.setting / checkpoint
        if not (folder / "verdicts.parquet").exists():
            raise SystemExit(f"{folder}: no verdicts.parquet (has the main job judged it?)")
        print(f"\n## {args.model} / {args.setting} / {checkpoint}\n")
        print(modes_table(folder).to_markdown())


if __name__ == "__main__":
    main()
