"""The second-attempt table, `results/second_attempts.parquet` (SECOND_ATTEMPT_SCHEMA):
how often a second attempt (evaluate/second_attempt.py) corrects a failed first attempt,
by the first failure's type, per model x setting x checkpoint; and, at an equal budget
of two samples per episode, the problems solved within two attempts against pass@2 of
first attempts alone."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa

from codefrontier.analysis.frontier import (
    Checkpoint,
    cluster_standard_error,
    episode_counts,
    per_cluster,
    problem_counts,
)
from codefrontier.base.layout import second_attempt_verdicts_path
from codefrontier.base.provenance import parquet_metadata, record
from codefrontier.base.tables import read_records, write_records
from codefrontier.evaluate.second_attempt import SECOND_ATTEMPT_OUTCOMES
from codefrontier.judge.verdicts import Outcome

SECOND_ATTEMPT_SCHEMA = pa.schema([
    ("model", pa.string()), ("setting", pa.string()), ("checkpoint", pa.string()),
    ("seed", pa.int64()),               # the run's training seed (frontier table)
    ("first_failure", pa.string()),     # optimization_failure | correctness_failure | all
    ("problems", pa.int64()),
    ("attempts", pa.int64()),           # failed first attempts given a second one
    ("corrected", pa.int64()),          # second attempts judged correct
    ("corrected_rate", pa.float64()),   # corrected / attempts
    ("se_corrected_rate", pa.float64()),   # clustered by problem
    *[(f"second_{o.value}", pa.float64()) for o in Outcome],  # the second attempts' mix
    # `all` rows only, at an equal budget of 2 samples per episode: the share of first
    # attempts solved by themselves or by their second attempt, against pass@2 of first attempts
    ("solved_within_two", pa.float64()),
    ("first_pass_at_2", pa.float64()),
])


def second_attempt_rows(first_verdicts: list[dict], second_verdicts: list[dict], model: str,
                        setting: str, checkpoint: str, seed: int = 0) -> list[dict]:
    """Second-attempt rates by the first attempt's failure (and `all`)."""
    first = {(v["problem_id"], v["sample_id"]): v["outcome"] for v in first_verdicts}
    pairs = [(first[(v["problem_id"], v["sample_id"])], v) for v in second_verdicts]
    rows = []
    for failure in (*SECOND_ATTEMPT_OUTCOMES, "all"):
        chosen = [v for kind, v in pairs if failure in (kind, "all")]
        if not chosen:
            continue
        per_problem = problem_counts(chosen)  # (second attempts, corrected) per problem
        corrected = sum(x for _, x in per_problem.values())
        rows.append({
            "model": model, "setting": setting, "checkpoint": checkpoint, "seed": seed,
            "first_failure": failure, "problems": len(per_problem), "attempts": len(chosen),
            "corrected": corrected, "corrected_rate": corrected / len(chosen),
            "se_corrected_rate": cluster_standard_error(per_cluster(per_problem)),
            **{f"second_{o.value}": sum(v["outcome"] == o for v in chosen) / len(chosen)
               for o in Outcome},
            **(equal_budget(first_verdicts, second_verdicts) if failure == "all" else
               {"solved_within_two": None, "first_pass_at_2": None})})
    return rows


def equal_budget(first_verdicts: list[dict], second_verdicts: list[dict]) -> dict:
    """Every first attempt with its second attempt costs two samples (a correct one or a format
    error spends one, so this is conservative): per problem, the share of first attempts
    solved by themselves or their second attempt, against pass@2 of the first attempts; averaged
    over problems."""
    from codefrontier.analysis.metrics import pass_at_k

    firsts = problem_counts(first_verdicts)
    episodes = episode_counts(first_verdicts, second_verdicts)
    usable = [pid for pid, (n, _) in firsts.items() if n >= 2]
    if not usable:
        return {"solved_within_two": None, "first_pass_at_2": None}
    return {"solved_within_two": sum(s / n for n, s in map(episodes.get, usable)) / len(usable),
            "first_pass_at_2": sum(pass_at_k(*firsts[pid], 2) for pid in usable) / len(usable)}


def write_second_attempt_table(first_verdicts: list[str | os.PathLike],
                               out: str | os.PathLike, first_seed: int = 0) -> Path:
    """results/second_attempts.parquet from results/{model}/{setting}/{ckpt}/verdicts.parquet
    files, each with its second-attempt/verdicts.parquet beside it."""
    rows = []
    for path in first_verdicts:
        ckpt = Checkpoint.from_verdicts_path(path, first_seed)
        rows += second_attempt_rows(read_records(ckpt.verdicts),
                                    read_records(second_attempt_verdicts_path(ckpt.verdicts)),
                                    ckpt.model, ckpt.setting, ckpt.name, ckpt.seed)
    inputs = [file for path in first_verdicts
              for file in (path, second_attempt_verdicts_path(path))]
    provenance = record(inputs, kind="second_attempt_table")
    write_records(rows, out, schema=SECOND_ATTEMPT_SCHEMA,
                  metadata=parquet_metadata(provenance))
    return Path(out)
