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

Over S training seeds a comparison is a mean over C × S cells (analysis/stats.py's
crossed model): Var = τ²/C + σ_v²/S + (ι² + s²/m)/(C·S), σ_v² the seed-to-seed variance
of the difference and ι² the family × seed interaction, m the samples of one family
under one seed. A run of several seeds measures both (mean squares of each pair's
cluster × seed table of differences, averaged over pairs, then truncated at 0); a
one-seed run cannot, and counts ι² in τ² and σ_v² as 0: with several seeds its figures
are lower bounds.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from codefrontier.analysis.clusters import cluster_rate
from codefrontier.analysis.stats import VarianceComponents, detectable_difference, mean_squares
from codefrontier.judge.verdicts import OUTCOMES


def paired_sampling_variance(rate: float, samples_per_cluster: float) -> float:
    """The binomial variance of one cluster's paired difference of two checkpoints' rates
    near `rate`: 2p(1−p) over the cluster's samples."""
    return 2 * rate * (1 - rate) / samples_per_cluster


@dataclass(frozen=True)
class RateVariance:
    """One outcome's heterogeneity τ² of paired per-cluster differences and its rate p;
    from a run of several seeds also the seed variance σ_v² of the difference and the
    family × seed interaction ι² (`seeds_measured`)."""

    heterogeneity: float
    rate: float
    seed: float = 0.0
    interaction: float = 0.0
    seeds_measured: bool = False

    def components(self, samples_per_cell: float, seeds: int) -> VarianceComponents:
        """The crossed model's components at a design of `seeds` seeds and
        `samples_per_cell` samples of a family under one seed."""
        within = self.interaction + paired_sampling_variance(self.rate, samples_per_cell)
        if seeds == 1:
            return VarianceComponents(cluster=self.heterogeneity + within)
        return VarianceComponents(cluster=self.heterogeneity, seed=self.seed, residual=within)


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


def crossed_pair_variances(clusters: pd.DataFrame, outcome: str) -> list[RateVariance]:
    """τ², σ_v² and ι² (untruncated) and p of every pair of checkpoints of one model ×
    setting over its seeds, from the mean squares of the pair's cluster × seed table of
    differences (analysis/stats.py), ι² less the sampling variance of a cell."""
    rates = clusters.assign(rate=cluster_rate(clusters, outcome))
    table = rates.pivot_table(index=["cluster", "seed"], columns="checkpoint", values="rate")
    samples = float(clusters["samples"].mean())
    found = []
    for a, b in itertools.combinations(table.columns, 2):
        grid = (table[b] - table[a]).unstack("seed").dropna()
        if grid.shape[0] < 2 or grid.shape[1] < 2:
            continue
        ms_cluster, ms_seed, ms_residual = mean_squares(grid.to_numpy())
        clusters_n, seeds_n = grid.shape
        p = float(table[[a, b]].to_numpy().mean())
        found.append(RateVariance(
            heterogeneity=(ms_cluster - ms_residual) / seeds_n, rate=p,
            seed=(ms_seed - ms_residual) / clusters_n,
            interaction=ms_residual - paired_sampling_variance(p, samples),
            seeds_measured=True))
    return found


def _averaged(pairs: list[RateVariance], name: str) -> float:
    """A component's mean over pairs, truncated at 0 after averaging."""
    return max(0.0, statistics.fmean(getattr(v, name) for v in pairs))


def measured_variance(clusters: pd.DataFrame) -> dict[str, dict[str, RateVariance]]:
    """setting -> outcome -> τ² and p over a run's pairs of checkpoints (and, over
    several seeds, σ_v² and ι²): the mean of the pairs' estimates, truncated at 0 after
    averaging (truncating each first would bias them up, taking a median would take the
    many near-identical pairs of adjacent merges for the typical comparison), and the
    mean rate."""
    measured = {}
    for setting, rows in clusters.groupby("setting"):
        per_outcome = {}
        several = rows["seed"].nunique() > 1
        for outcome in OUTCOMES:
            pairs = [v for _, group in rows.groupby("model")
                     for v in crossed_pair_variances(group, outcome)] if several else \
                    [v for (_, _), group in rows.groupby(["model", "seed"])
                     for v in pair_variances(group, outcome)]
            if pairs:
                per_outcome[outcome] = RateVariance(
                    _averaged(pairs, "heterogeneity"), statistics.fmean(v.rate for v in pairs),
                    _averaged(pairs, "seed"), _averaged(pairs, "interaction"),
                    seeds_measured=several)
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
    def samples_per_cell(self) -> float:
        """The samples of one cluster's problems under one seed."""
        return self.problems / self.clusters * self.samples_per_problem


def detectable(design: Design, variance: dict[str, RateVariance]) -> dict[str, float]:
    """outcome -> the minimum detectable paired difference of a design (with several
    seeds and figures of a one-seed run, a lower bound: the seed terms are unknown)."""
    return {outcome: detectable_difference(
                figures.components(design.samples_per_cell, design.seeds),
                design.clusters, design.seeds).difference
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
