"""Where the evaluation's budget buys power: from a finished run, per setting, the
variance of paired per-family differences split into heterogeneity across families and
sampling within them (pipeline/power.py), and for each candidate design (instances per
family × samples per problem, at the run's families) the smallest detectable difference
per rate with what its sampling and judging would cost in the main job.

    python benchmarks/eval_design.py RUN [--instances 3 6 12] [--samples 5 10 20]

(RUN: a finished run's folder, e.g. after `make run`, the checkout). Costs scale the
run's own sample and judge job seconds per sample (results/benchmarks) by the samples a
design draws; GRPO and SFT do not change.

Last, the cuts docs/design.md's rule ranks ("Scale and budgets"): in each setting, one
sample per problem fewer, with the job seconds it saves and the detectable difference
it loses in the rates the findings rest on (points lost per 100 s saved: the mean over
those rates), beside what one merged checkpoint costs to evaluate in that setting (its
merge, sampling and judging), which changes the curve rather than its precision.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from codefrontier.base.layout import BENCHMARKS, CLUSTERS
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.pipeline import power


def seconds_per_sample(run: Path, clusters: pd.DataFrame, setting: str) -> float:
    """The run's sample and judge job seconds in a setting (summed) per sample judged
    (job benchmark files `<rule>/<model>-<setting>-<ckpt>.tsv`, layout.JOBS)."""
    spent = sum(float(pd.read_csv(path, sep="\t")["s"].iloc[-1])
                for rule in ("sample", "judge")
                for path in (run / BENCHMARKS / rule).glob(f"*-{setting}-*.tsv"))
    return spent / clusters.loc[clusters["setting"] == setting, "samples"].sum()


FINDING_RATES = ("correct", "optimization_failure", "correctness_failure")


def merge_seconds(run: Path) -> float:
    """The mean job seconds of one merge (results/benchmarks/merge)."""
    times = [float(pd.read_csv(path, sep="\t")["s"].iloc[-1])
             for path in (run / BENCHMARKS / "merge").glob("*.tsv")]
    return sum(times) / len(times) if times else 0.0


def print_cuts(run: Path, clusters: pd.DataFrame, measured: dict) -> None:
    """One sample per problem fewer in each setting, and one merged checkpoint fewer."""
    families = clusters["cluster"].nunique()
    print("## Cuts: one sample per problem fewer, or one merged checkpoint fewer\n")
    print("| setting | cut | job s saved | " + " | ".join(FINDING_RATES)
          + " | points lost per 100 s |")
    print("|---|---|---:|" + "---:|" * (len(FINDING_RATES) + 1))
    per_merge = merge_seconds(run)
    for setting, variance in measured.items():
        rows = clusters[clusters["setting"] == setting]
        checkpoints = rows[["seed", "checkpoint"]].drop_duplicates()
        samples = round(rows["samples"].sum() / rows["problems"].sum())
        problems = round(rows["problems"].sum() / len(checkpoints))
        per_sample = seconds_per_sample(run, clusters, setting)
        now = power.detectable(power.Design(families, problems, samples), variance)
        if samples > 1:
            fewer = power.detectable(power.Design(families, problems, samples - 1), variance)
            saved = per_sample * problems * len(checkpoints)
            lost = [fewer[o] - now[o] for o in FINDING_RATES]
            print(f"| {setting} | samples {samples} → {samples - 1} | {saved:,.0f} | "
                  + " | ".join(f"+{d:.3f}" for d in lost)
                  + f" | {100 * sum(lost) / len(lost) / saved * 100:.2f} |")
        merged = per_sample * problems * samples + per_merge
        print(f"| {setting} | one merged checkpoint | {merged:,.0f} | "
              + " | ".join("0" for _ in FINDING_RATES) + " | (the curve) |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--instances", type=int, nargs="+", default=[3, 6, 12])
    parser.add_argument("--samples", type=int, nargs="+", default=[5, 10, 20])
    args = parser.parse_args()
    clusters = pd.read_parquet(args.run / CLUSTERS)
    measured = power.measured_variance(clusters)
    families = clusters["cluster"].nunique()
    checkpoints = clusters.groupby("setting")["checkpoint"].nunique()
    for setting, variance in measured.items():
        per_sample = seconds_per_sample(args.run, clusters, setting)
        print(f"## {setting}: {families} families, {checkpoints[setting]} checkpoints, "
              f"sampling and judging {per_sample:.3f} s per sample")
        print("Heterogeneity τ² (and rate p) of paired per-family differences:")
        print(", ".join(f"{o}: {variance[o].heterogeneity:.5f} (p {variance[o].rate:.3f})"
                        for o in OUTCOMES if o in variance))
        print("\n| instances | samples/problem | " + " | ".join(OUTCOMES)
              + " | sampling + judging s |")
        print("|---:|---:|" + "---:|" * (len(OUTCOMES) + 1))
        for instances in args.instances:
            for samples in args.samples:
                design = power.Design(families, families * instances, samples)
                found = power.detectable(design, variance)
                cost = per_sample * families * instances * samples * checkpoints[setting]
                print(f"| {instances} | {samples} | "
                      + " | ".join(f"{found[o]:.3f}" for o in OUTCOMES if o in found)
                      + f" | {cost:,.0f} |")
        print()
    print_cuts(args.run, clusters, measured)


if __name__ == "__main__":
    main()
