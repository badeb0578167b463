"""What a grid can show before it runs: the smallest difference in each outcome rate
between two checkpoints that its evaluation detects with 80% power at 95% (the minimum
detectable difference, analysis/stats.py), per setting.

A comparison is a mean over C clusters of per-cluster paired differences (a bundled
family, or a real dataset's problem). The variance of one cluster's difference is

    τ² + s² / m

τ² the heterogeneity of the true difference across clusters, s² = p_a(1−p_a) + p_b(1−p_b)
the two checkpoints' binomial sampling variance per sample, m the samples per cluster
(instances × samples per problem). τ² and the rate p come from a finished run's cluster
table (`plan --variance-from RUN`: per setting and outcome, the mean over its pairs of
checkpoints of the observed variance less s²/m, truncated at 0) or, without one, from DEFAULT_VARIANCE,
measured on the default's run. So a plan can weigh more clusters against more samples
per cluster: samples shrink only the second term. The variance between a family's
instances is counted in τ² (a run with one instance count cannot tell it apart), so the
gain from more instances is understated.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from codefrontier.analysis.clusters import cluster_rate
from codefrontier.analysis.stats import VarianceComponents, detectable_difference
from codefrontier.judge.verdicts import OUTCOMES


def paired_sampling_variance(rate: float, samples_per_cluster: float) -> float:
    """The binomial variance of one cluster's paired difference of two checkpoints' rates
    near `rate`: 2p(1−p) over the cluster's samples."""
    return 2 * rate * (1 - rate) / samples_per_cluster


@dataclass(frozen=True)
class RateVariance:
    """One outcome's heterogeneity τ² of paired per-cluster differences and its rate p."""

    heterogeneity: float
    rate: float

    def cluster_variance(self, samples_per_cluster: float) -> float:
        return self.heterogeneity + paired_sampling_variance(self.rate, samples_per_cluster)


# Measured on the default's run (a fresh clone's `make run` of 176c7a5, seed 0, SFT
# sha256 334cfac4, on the AMD EPYC AVX-512 VM; `python benchmarks/eval_design.py RUN`
# prints them): `codefrontier plan --variance-from RUN` uses any run's figures instead. A
# grid's setting that is not here takes reasoning's.
DEFAULT_VARIANCE: dict[str, dict[str, RateVariance]] = {
    "reasoning": {
        "correct": RateVariance(0.00503, 0.250),
        "optimization_failure": RateVariance(0.00040, 0.094),
        "correctness_failure": RateVariance(0.02151, 0.639),
        "format_error": RateVariance(0.00420, 0.017),
    },
    "tool_use": {
        "correct": RateVariance(0.0, 0.190),
        "optimization_failure": RateVariance(0.0, 0.030),
        "correctness_failure": RateVariance(0.00310, 0.647),
        "format_error": RateVariance(0.00293, 0.133),
    },
    "agentic": {
        "correct": RateVariance(0.0, 0.232),
        "optimization_failure": RateVariance(0.0, 0.081),
        "correctness_failure": RateVariance(0.0, 0.594),
        "format_error": RateVariance(0.00425, 0.094),
    },
}


def default_variance(setting: str) -> dict[str, RateVariance]:
    return DEFAULT_VARIANCE.get(setting, DEFAULT_VARIANCE["reasoning"])


def pair_variances(clusters: pd.DataFrame, outcome: str) -> list[RateVariance]:
    """τ² (untruncated: observed variance less sampling, which may be below 0) and p of
    every pair of checkpoints of one model × setting × seed."""
    rates = clusters.assign(rate=cluster_rate(clusters, outcome))
    table = rates.pivot_table(index="cluster", columns="checkpoint", values="rate")
    samples = clusters.groupby("cluster")["samples"].mean()
    found = []
    for a, b in itertools.combinations(table.columns, 2):
        both = table[[a, b]].dropna()
        if len(both) < 2:
            continue
        differences = both[b] - both[a]
        p = float(both.to_numpy().mean())
        sampling = paired_sampling_variance(p, float(samples.loc[both.index].mean()))
        found.append(RateVariance(float(differences.var(ddof=1)) - sampling, p))
    return found


def measured_variance(clusters: pd.DataFrame) -> dict[str, dict[str, RateVariance]]:
    """setting -> outcome -> τ² and p over a run's pairs of checkpoints: the mean of the
    pairs' τ² estimates, truncated at 0 after averaging (truncating each first would
    bias it up, taking a median would take the many near-identical pairs of adjacent
    merges for the typical comparison), and the mean rate."""
    measured = {}
    for setting, rows in clusters.groupby("setting"):
        per_outcome = {}
        for outcome in OUTCOMES:
            pairs = [v for (_, _), group in rows.groupby(["model", "seed"])
                     for v in pair_variances(group, outcome)]
            if pairs:
                per_outcome[outcome] = RateVariance(
                    max(0.0, statistics.fmean(v.heterogeneity for v in pairs)),
                    statistics.fmean(v.rate for v in pairs))
        measured[setting] = per_outcome
    return measured


def variance_from(run: Path) -> dict[str, dict[str, RateVariance]]:
    """The variance figures of a finished run's cluster table (RUN/results/clusters.parquet)."""
    from codefrontier.base.layout import CLUSTERS

    path = run / CLUSTERS
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no cluster table (a run finished by this version's "
                                "workflow writes one beside results/frontier.parquet)")
    return measured_variance(pd.read_parquet(path))


@dataclass(frozen=True)
class Design:
    """One setting's evaluation: its clusters, problems and samples per problem."""

    clusters: int
    problems: int
    samples_per_problem: int
    seeds: int = 1

    @property
    def samples_per_cluster(self) -> float:
        """Every seed's samples of a cluster's problems: the seeds' evaluations of one
        family average its sampling noise (the seed-to-seed variance of a comparison is
        not known from a one-seed run, and is left out: with several seeds the figures
        are lower bounds)."""
        return self.problems / self.clusters * self.samples_per_problem * self.seeds


def detectable(design: Design, variance: dict[str, RateVariance]) -> dict[str, float]:
    """outcome -> the minimum detectable paired difference of a design."""
    return {outcome: detectable_difference(
                VarianceComponents(cluster=figures.cluster_variance(design.samples_per_cluster)),
                design.clusters).difference
            for outcome, figures in variance.items()}


def eval_design(config: dict, workdir: Path, eval_problems: int) -> tuple[int, int]:
    """(clusters, problems) of the run's evaluation: counted in its problems file when it
    is there; else, for the bundled suite, the instances its options select; else every
    problem its own cluster."""
    from codefrontier.base.layout import DATA
    from codefrontier.problems.schema import cluster_of

    path = workdir / DATA.fill(split="eval")
    if path.is_file():
        ids = pd.read_parquet(path, columns=["problem_id"])["problem_id"]
        return ids.map(cluster_of).nunique(), len(ids)
    data = config["data"]["eval"]
    if data.get("source", "bundled") == "bundled":
        from codefrontier.suite.build import instances

        chosen = instances(data.get("split", "eval"), data.get("instances"),
                           data.get("difficulty"), data.get("family"), data.get("knob_pool"))
        return len({i.family.slug for i in chosen}), len(chosen)
    return eval_problems, eval_problems
