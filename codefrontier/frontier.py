"""Aggregating verdicts into the frontier table: one row per checkpoint and difficulty.

Inputs follow the workflow's layout, results/{model}/{setting}/{ckpt}/ with
samples.parquet and verdicts.parquet, where ckpt is `sft`, `rl-{reward}` or
`a{alpha}`. Schema: FRONTIER_SCHEMA (docs/results.md).
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from codefrontier.checkpoints import CheckpointName, rl_name
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.problems import load_problems
from codefrontier.tables import read_records

FORMAT_CAUSES = ("truncated", "no_code_block")
DIFFICULTIES = ("easy", "medium", "hard")

FRONTIER_SCHEMA = pa.schema([
    ("model", pa.string()), ("setting", pa.string()), ("checkpoint", pa.string()),
    ("kind", pa.string()),            # sft | rl | merge
    ("reward", pa.string()),          # rl: the reward; merge: "low->high"; sft: null
    ("alpha", pa.float64()),          # merge only
    ("difficulty", pa.string()),      # easy | medium | hard | all
    ("problems", pa.int64()), ("samples", pa.int64()),
    *[(f"rate_{o}", pa.float64()) for o in OUTCOMES],
    # problem-clustered standard error of each rate (cluster_standard_error)
    *[(f"se_{o}", pa.float64()) for o in OUTCOMES],
    ("pass_at_1", pa.float64()),      # mean over problems of c/n
    ("mean_completion_tokens", pa.float64()),
    *[(f"format_{c}_rate", pa.float64()) for c in FORMAT_CAUSES],  # share of all samples
])

@dataclass(frozen=True)
class Checkpoint:
    model: str
    setting: str
    name: str          # sft | rl-<reward> | a<alpha>
    verdicts: Path
    samples: Path

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
    def from_verdicts_path(cls, path: str | os.PathLike) -> Checkpoint:
        path = Path(path)
        ckpt, setting, model = path.parent.name, path.parent.parent.name, path.parents[2].name
        if not CheckpointName.is_valid(ckpt):
            raise ValueError(f"{path}: expected results/<model>/<setting>/<sft|rl-R|aA>/"
                             f"verdicts.parquet")
        return cls(model, setting, ckpt, path, path.with_name("samples.parquet"))


def problem_counts(verdicts: list[dict]) -> dict[str, tuple[int, int]]:
    """problem_id -> (samples, correct samples)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in verdicts:
        counts[row["problem_id"]][0] += 1
        counts[row["problem_id"]][1] += row["outcome"] == "correct"
    return {pid: (n, c) for pid, (n, c) in counts.items()}


def outcome_counts(verdicts: list[dict], outcome: str) -> list[tuple[int, int]]:
    """(samples, samples with `outcome`) per problem."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in verdicts:
        counts[row["problem_id"]][0] += 1
        counts[row["problem_id"]][1] += row["outcome"] == outcome
    return [(n, x) for n, x in counts.values()]


def cluster_standard_error(counts: list[tuple[int, int]]) -> float:
    """Standard error of the rate Σx_i/Σn_i from (n_i, x_i) per problem, clustered by
    problem: sqrt(P/(P−1) · Σ_i (x_i − p·n_i)²) / Σn_i. Samples of one problem share
    its difficulty, so they are not independent draws; NaN with fewer than 2 problems."""
    problems = len(counts)
    total = sum(n for n, _ in counts)
    if problems < 2 or total == 0:
        return float("nan")
    rate = sum(x for _, x in counts) / total
    squares = sum((x - rate * n) ** 2 for n, x in counts)
    return math.sqrt(problems / (problems - 1) * squares) / total


def correct_counts(checkpoint: Checkpoint) -> dict[str, tuple[int, int]]:
    return problem_counts(read_records(checkpoint.verdicts))


def frontier_rows(checkpoints: list[Checkpoint], problems_path: str | os.PathLike,
                  endpoints: dict[str, tuple[str, str]] | None = None) -> list[dict]:
    """One row per checkpoint x difficulty (and "all"); `endpoints` names each model's
    merge parents (low, high) for the merged checkpoints' reward column."""
    difficulty = {p.problem_id: p.difficulty for p in load_problems(problems_path)}
    rows = []
    for ckpt in checkpoints:
        verdicts = read_records(ckpt.verdicts)
        tokens = {(r["problem_id"], r["sample_id"]): r["completion_tokens"]
                  for r in read_records(ckpt.samples)} if ckpt.samples.exists() else {}
        unknown = {v["problem_id"] for v in verdicts} - difficulty.keys()
        if unknown:
            raise ValueError(f"{ckpt.verdicts}: problems not in {problems_path}: "
                             f"{sorted(unknown)[:5]}")
        for level in (*DIFFICULTIES, "all"):
            chosen = [v for v in verdicts if level == "all" or difficulty[v["problem_id"]] == level]
            if not chosen:
                continue
            low_high = (endpoints or {}).get(ckpt.model)
            rows.append(_row(ckpt, level, chosen, tokens, low_high))
    return rows


def _row(ckpt: Checkpoint, level: str, verdicts: list[dict], tokens: dict,
         low_high: tuple[str, str] | None) -> dict:
    outcomes = Counter(v["outcome"] for v in verdicts)
    causes = Counter(v["format_error_cause"] for v in verdicts if v["outcome"] == "format_error")
    per_problem = problem_counts(verdicts)
    used = [tokens[(v["problem_id"], v["sample_id"])] for v in verdicts
            if (v["problem_id"], v["sample_id"]) in tokens]
    total = len(verdicts)
    merge_reward = f"{low_high[0]}->{low_high[1]}" if low_high else None
    reward = ckpt.parsed.reward if ckpt.kind == "rl" else \
        merge_reward if ckpt.kind == "merge" else None
    return {
        "model": ckpt.model, "setting": ckpt.setting, "checkpoint": ckpt.name,
        "kind": ckpt.kind, "reward": reward, "alpha": ckpt.alpha_on_curve(low_high),
        "difficulty": level,
        "problems": len(per_problem), "samples": total,
        **{f"rate_{o}": outcomes[o] / total for o in OUTCOMES},
        **{f"se_{o}": cluster_standard_error(outcome_counts(verdicts, o)) for o in OUTCOMES},
        "pass_at_1": sum(c / n for n, c in per_problem.values()) / len(per_problem),
        "mean_completion_tokens": sum(used) / len(used) if used else float("nan"),
        **{f"format_{c}_rate": causes[c] / total for c in FORMAT_CAUSES},
    }
