"""Aggregating verdicts into the frontier table: one row per checkpoint and difficulty.

Inputs follow the workflow's layout, results/{model}/{setting}/{ckpt}/ with
samples.parquet and verdicts.parquet, where ckpt is `sft`, `rl-{reward}` or
`a{alpha}`, and {model} is a run: the model's own name under the grid's first seed,
<model>@seed<N> under seed N (layout.run_name). Schema: FRONTIER_SCHEMA
(docs/results.md).
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from codefrontier.analysis.distance import curve_distances, distance_columns
from codefrontier.base.layout import (
    SAMPLES,
    VERDICTS,
    CheckpointName,
    rl_name,
    split_run,
    trained_folder,
)
from codefrontier.base.provenance import read_provenance
from codefrontier.base.tables import read_records
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.problems.schema import cluster_of, load_problems
from codefrontier.settings.registry import SETTINGS

# Why a sample is a format error (the verdicts' `format_error_cause`): the token budget ran
# out, no fenced block, a tool call the parser could not read, the turn or token budget ran
# out mid-episode, an agentic episode that ended without a submit.
FORMAT_CAUSES = ("truncated", "no_code_block", "malformed_tool_call", "turn_budget_exhausted",
                 "no_submission")
DIFFICULTIES = ("easy", "medium", "hard")
# samples.parquet columns read here, with the value a file written before them implies
SAMPLE_DEFAULTS = {"completion_tokens": None, "turns": 1, "tool_calls": 0}

FRONTIER_SCHEMA = pa.schema([
    ("model", pa.string()), ("setting", pa.string()),
    ("seed", pa.int64()),             # the training seed of the run (config `seeds`)
    ("checkpoint", pa.string()),
    ("kind", pa.string()),            # sft | rl | merge
    ("reward", pa.string()),          # rl: the reward; merge: "low->high"; sft: null
    ("alpha", pa.float64()),          # merge only
    ("difficulty", pa.string()),      # easy | medium | hard | all
    ("problems", pa.int64()), ("samples", pa.int64()),
    *[(f"rate_{o}", pa.float64()) for o in OUTCOMES],
    # family-clustered (problems.schema.cluster_of) standard error of each rate
    # (cluster_standard_error)
    *[(f"se_{o}", pa.float64()) for o in OUTCOMES],
    ("pass_at_1", pa.float64()),      # mean over problems of c/n
    ("mean_completion_tokens", pa.float64()),
    *[(f"format_{c}_rate", pa.float64()) for c in FORMAT_CAUSES],  # share of all samples
    ("mean_turns", pa.float64()),       # model turns per sample
    ("mean_tool_calls", pa.float64()),  # tool calls or terminal actions per sample
    # rl and merge: the setting whose GRPO runs made the checkpoint (the row's own, or the
    # one `rl.trained_in` names; read from the samples' provenance); sft: null
    ("trained_in", pa.string()),
    # signed distance of (rate_correctness_failure, rate_optimization_failure) from the α
    # curve of the row's model, setting and difficulty, with a 95% bootstrap interval over
    # families (problems.schema.cluster_of; distance.py); null without a curve of 2 points
    ("frontier_distance", pa.float64()),
    ("frontier_distance_lo", pa.float64()),
    ("frontier_distance_hi", pa.float64()),
    # the same against the interpolation curve alone (the rows with α in [0, 1]): how far
    # an extrapolated merge or another run reaches beyond what interpolation gives
    ("interpolation_distance", pa.float64()),
    ("interpolation_distance_lo", pa.float64()),
    ("interpolation_distance_hi", pa.float64()),
])


@dataclass(frozen=True)
class Checkpoint:
    model: str
    setting: str
    name: str          # sft | rl-<reward> | a<alpha>
    verdicts: Path
    samples: Path
    seed: int = 0      # the run's training seed

    @property
    def parsed(self) -> CheckpointName:
        return CheckpointName.parse(self.name)

    @property
    def kind(self) -> str:
        return self.parsed.kind

    @property
    def alpha(self) -> float | None:
        return self.parsed.alpha

    def alpha_on_curve(self, endpoints: tuple[str, str] | None) -> float | None:
        """Its α on the merge curve: a merge's own, 0 for the low RL endpoint and 1 for
        the high one (θ_0 = θ_low and θ_1 = θ_high, so no merge is made for them)."""
        if self.kind == "merge":
            return self.alpha
        if self.kind == "rl" and endpoints:
            low, high = endpoints
            return {rl_name(low): 0.0, rl_name(high): 1.0}.get(self.name)
        return None

    @classmethod
    def from_verdicts_path(cls, path: str | os.PathLike, first_seed: int = 0) -> Checkpoint:
        """The checkpoint of a verdicts file; `first_seed` is the grid's first seed, the
        seed of the runs named by their model alone (layout.run_name)."""
        path = Path(path)
        parts = VERDICTS.parse(path)
        if parts is None:
            raise ValueError(f"{path}: expected {VERDICTS} (ckpt: sft, rl-<reward> or "
                             f"a<alpha>)")
        model, seed = split_run(parts["model"])
        return cls(model, parts["setting"], parts["ckpt"], path,
                   VERDICTS.counterpart(path, SAMPLES), first_seed if seed is None else seed)


def problem_counts(verdicts: list[dict]) -> dict[str, tuple[int, int]]:
    """problem_id -> (samples, correct samples)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in verdicts:
        counts[row["problem_id"]][0] += 1
        counts[row["problem_id"]][1] += row["outcome"] == "correct"
    return {pid: (n, c) for pid, (n, c) in counts.items()}


def episode_counts(first_verdicts: list[dict],
                   second_verdicts: list[dict]) -> dict[str, tuple[int, int]]:
    """problem_id -> (first attempts, episodes solved): an episode is a first attempt and,
    when it failed, its second attempt (repair); it is solved when either is correct."""
    repaired = {(v["problem_id"], v["sample_id"]) for v in second_verdicts
                if v["outcome"] == "correct"}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in first_verdicts:
        key = (row["problem_id"], row["sample_id"])
        counts[row["problem_id"]][0] += 1
        counts[row["problem_id"]][1] += row["outcome"] == "correct" or key in repaired
    return {pid: (n, s) for pid, (n, s) in counts.items()}


def cluster_outcome_counts(verdicts: list[dict], outcome: str) -> list[tuple[int, int]]:
    """(samples, samples with `outcome`) per cluster (problems.schema.cluster_of: a
    bundled problem's family, any other problem itself)."""
    per_problem: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in verdicts:
        per_problem[row["problem_id"]][0] += 1
        per_problem[row["problem_id"]][1] += row["outcome"] == outcome
    return per_cluster(per_problem)


def per_cluster(per_problem: dict[str, tuple[int, int]]) -> list[tuple[int, int]]:
    """(n, x) per problem summed per cluster (problems.schema.cluster_of)."""
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for problem_id, (n, x) in per_problem.items():
        total = sums[cluster_of(problem_id)]
        total[0] += n
        total[1] += x
    return [(n, x) for n, x in sums.values()]


def cluster_standard_error(counts: list[tuple[int, int]]) -> float:
    """Standard error of the rate Σx_g/Σn_g from (n_g, x_g) per cluster, clustered by
    those clusters: sqrt(G/(G−1) · Σ_g (x_g − p·n_g)²) / Σn_g. Samples of one cluster
    share its difficulty, so they are not independent draws; NaN with fewer than 2
    clusters. The frontier table's `se_` columns take cluster_outcome_counts (families)."""
    clusters = len(counts)
    total = sum(n for n, _ in counts)
    if clusters < 2 or total == 0:
        return float("nan")
    rate = sum(x for _, x in counts) / total
    squares = sum((x - rate * n) ** 2 for n, x in counts)
    return math.sqrt(clusters / (clusters - 1) * squares) / total


def correct_counts(checkpoint: Checkpoint) -> dict[str, tuple[int, int]]:
    return problem_counts(read_records(checkpoint.verdicts))


def sample_stats(checkpoint: Checkpoint) -> dict[tuple[str, int], dict]:
    """(problem_id, sample_id) -> completion_tokens, turns, tool_calls from samples.parquet;
    a column the file predates, or a null, reads as SAMPLE_DEFAULTS (turns 1, tool calls 0);
    no file: {}.
    Only these columns are read (transcripts can be large)."""
    path = checkpoint.samples
    if not path.exists():
        return {}
    present = set(pq.read_schema(path).names)
    wanted = ["problem_id", "sample_id", "setting", *SAMPLE_DEFAULTS]
    table = pq.read_table(path, columns=[c for c in wanted if c in present])
    others = set(table.column("setting").to_pylist()) - {checkpoint.setting} \
        if "setting" in present else set()
    if others:
        raise ValueError(f"{path}: samples of setting {sorted(others)} in the folder of "
                         f"setting {checkpoint.setting!r}")
    return {(row["problem_id"], row["sample_id"]):
            {key: default if row.get(key) is None else row[key]
             for key, default in SAMPLE_DEFAULTS.items()}
            for row in table.to_pylist()}


def runs_setting(checkpoint: Checkpoint) -> str | None:
    """The setting whose GRPO runs made an RL or merged checkpoint, the table's
    `trained_in`: the workflow chose it (workflow.trained_in) and the samples' provenance
    names the folder it chose, results/<model>/<setting>/rl/<reward> or .../merge/a<alpha>;
    a folder outside that layout counts as the row's own setting."""
    if checkpoint.kind == "sft":
        return None
    recorded = (read_provenance(checkpoint.samples) or {}).get("model", "") \
        if checkpoint.samples.exists() else ""
    folder = trained_folder(recorded)
    return folder["setting"] if folder and folder["setting"] in SETTINGS else checkpoint.setting


def check_format_causes(verdicts: list[dict], path: Path) -> None:
    """Every format error's cause is one the table has a column for."""
    unknown = {v["format_error_cause"] for v in verdicts
               if v["outcome"] == "format_error"} - set(FORMAT_CAUSES)
    if unknown:
        raise ValueError(f"{path}: format-error causes {sorted(map(str, unknown))} are not "
                         f"among {', '.join(FORMAT_CAUSES)} (frontier.FORMAT_CAUSES)")


def frontier_rows(checkpoints: list[Checkpoint], problems_path: str | os.PathLike,
                  endpoints: dict[str, tuple[str, str]] | None = None) -> list[dict]:
    """One row per checkpoint x difficulty (and "all"); `endpoints` names each model's
    merge parents (low, high) for the merged checkpoints' reward column. Checkpoints of
    several models and settings give rows of each (model, setting)."""
    difficulty = {p.problem_id: p.difficulty for p in load_problems(problems_path)}
    rows, chosen_verdicts = [], []
    for ckpt in checkpoints:
        verdicts = read_records(ckpt.verdicts)
        unknown = {v["problem_id"] for v in verdicts} - difficulty.keys()
        if unknown:
            raise ValueError(f"{ckpt.verdicts}: problems not in {problems_path}: "
                             f"{sorted(unknown)[:5]}")
        check_format_causes(verdicts, ckpt.verdicts)
        stats = sample_stats(ckpt)
        low_high = (endpoints or {}).get(ckpt.model)
        source = runs_setting(ckpt)
        for level in (*DIFFICULTIES, "all"):
            chosen = [v for v in verdicts if level == "all" or difficulty[v["problem_id"]] == level]
            if chosen:
                rows.append({**_row(ckpt, level, chosen, stats, low_high), "trained_in": source})
                chosen_verdicts.append(chosen)
    add_frontier_distances(rows, chosen_verdicts)
    return rows


def add_frontier_distances(rows: list[dict], verdicts: list[list[dict]]) -> None:
    """Each row's distance and interval against the α curve of its model, seed, setting
    and difficulty (the rows with an α, in α order: `frontier_distance`) and against its
    interpolation part (α in [0, 1]: `interpolation_distance`); `verdicts[i]` are row i's.
    The bootstrap resamples clusters (problems.schema.cluster_of: families)."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        groups[(row["model"], row["seed"], row["setting"], row["difficulty"])].append(index)
    for members in groups.values():
        clusters = sorted({cluster_of(v["problem_id"]) for i in members for v in verdicts[i]})
        counts = np.array([failure_counts(verdicts[i], clusters) for i in members])
        columns = distance_columns(curve_distances([rows[i]["alpha"] for i in members], counts))
        for column, values in columns.items():
            for i, value in zip(members, values, strict=True):
                rows[i][column] = value


def failure_counts(verdicts: list[dict], clusters: list[str]) -> list[tuple[int, int, int]]:
    """(samples, correctness failures, optimization failures) per cluster
    (problems.schema.cluster_of), summed over its problems, in `clusters` order (0s for a
    cluster without samples)."""
    counts = {cluster: [0, 0, 0] for cluster in clusters}
    for v in verdicts:
        row = counts[cluster_of(v["problem_id"])]
        row[0] += 1
        row[1] += v["outcome"] == "correctness_failure"
        row[2] += v["outcome"] == "optimization_failure"
    return [tuple(counts[cluster]) for cluster in clusters]


def _mean(values: list) -> float:
    return sum(values) / len(values) if values else float("nan")


def _row(ckpt: Checkpoint, level: str, verdicts: list[dict], stats: dict,
         low_high: tuple[str, str] | None) -> dict:
    outcomes = Counter(v["outcome"] for v in verdicts)
    causes = Counter(v["format_error_cause"] for v in verdicts if v["outcome"] == "format_error")
    per_problem = problem_counts(verdicts)
    sampled = [stats[key] for v in verdicts if (key := (v["problem_id"], v["sample_id"])) in stats]
    total = len(verdicts)
    merge_reward = f"{low_high[0]}->{low_high[1]}" if low_high else None
    reward = ckpt.parsed.reward if ckpt.kind == "rl" else \
        merge_reward if ckpt.kind == "merge" else None
    return {
        "model": ckpt.model, "setting": ckpt.setting, "seed": ckpt.seed,
        "checkpoint": ckpt.name,
        "kind": ckpt.kind, "reward": reward, "alpha": ckpt.alpha_on_curve(low_high),
        "difficulty": level,
        "problems": len(per_problem), "samples": total,
        **{f"rate_{o}": outcomes[o] / total for o in OUTCOMES},
        **{f"se_{o}": cluster_standard_error(cluster_outcome_counts(verdicts, o))
           for o in OUTCOMES},
        "pass_at_1": sum(c / n for n, c in per_problem.values()) / len(per_problem),
        "mean_completion_tokens": _mean([s["completion_tokens"] for s in sampled
                                         if s["completion_tokens"] is not None]),
        **{f"format_{c}_rate": causes[c] / total for c in FORMAT_CAUSES},
        "mean_turns": _mean([s["turns"] for s in sampled]),
        "mean_tool_calls": _mean([s["tool_calls"] for s in sampled]),
    }


def write_frontier(verdicts: list[str | os.PathLike], problems_path: str | os.PathLike,
                   endpoints: dict[str, tuple[str, str]], out: str | os.PathLike,
                   first_seed: int = 0) -> int:
    """results/frontier.parquet from the checkpoints' verdict files; the number of rows."""
    from codefrontier.base.provenance import parquet_metadata, record
    from codefrontier.base.tables import write_records

    checkpoints = [Checkpoint.from_verdicts_path(p, first_seed) for p in verdicts]
    rows = frontier_rows(checkpoints, problems_path, endpoints)
    write_records(rows, out, schema=FRONTIER_SCHEMA, metadata=parquet_metadata(
        record([*verdicts, problems_path], kind="frontier")))
    return len(rows)
