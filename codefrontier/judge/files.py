"""Judging samples from files: the `codefrontier judge` command's library side.

The verdicts file is parquet, one row per sample; its columns are documented
in docs/judge.md and typed by VERDICTS_SCHEMA.

The job keeps its verdicts in `OUT.work/` as they come (base/shards.py), every
SHARD_SAMPLES samples or SHARD_SECONDS, so a killed job run again judges only the samples
it had not kept. A verdict depends on CPU time, so the guarantee is per sample: each
(problem, sample) is judged once, by the run that kept it. (Copies of one program share
one judgement within a run, JudgePool.judge; a copy judged after a resume is judged
again.)
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict

import pyarrow as pa

from codefrontier import __version__
from codefrontier.base.shards import ShardStore, job_fingerprint
from codefrontier.base.tables import read_records, write_records
from codefrontier.judge.pool import JudgePool, Sample, SampleResult
from codefrontier.problems.schema import load_problems

VERDICTS_SCHEMA = pa.schema([
    ("problem_id", pa.string()),
    ("sample_id", pa.int64()),
    ("outcome", pa.string()),
    ("verdicts", pa.list_(pa.string())),
    ("input_lens", pa.list_(pa.int64())),
    ("cpu_s", pa.list_(pa.float64())),
    ("peak_mb", pa.list_(pa.float64())),
    ("timing_runs", pa.list_(pa.int64())),
    ("first_failure", pa.int64()),
    ("max_passed_input_len", pa.int64()),
    ("format_error_cause", pa.string()),
    ("tle_cause", pa.string()),
    ("error", pa.string()),
    ("isolation", pa.string()),
])
# the columns that measure each test's run rather than decide its verdict: CPU time,
# memory and how often a run near the limit was timed move from run to run on any
# machine, so two runs that decided alike differ there (codefrontier compare)
MEASURED_COLUMNS = ("cpu_s", "peak_mb", "timing_runs")
# a judge job keeps its verdicts every SHARD_SAMPLES samples or SHARD_SECONDS, whichever
# comes first: a kill loses at most that much judging
SHARD_SAMPLES = 32
SHARD_SECONDS = 30.0

log = logging.getLogger("codefrontier.judge.files")


def load_samples(path: str | os.PathLike) -> list[Sample]:
    """Samples from parquet or JSONL: problem_id, sample_id, completion, optional code,
    finish_reason and episode_error (a multi-turn episode's own format error)."""
    records = read_records(path)
    samples = []
    for row_number, record in enumerate(records):
        missing = {"problem_id", "sample_id"} - record.keys()
        if missing or ("completion" not in record and "code" not in record):
            raise ValueError(f"{path}, row {row_number}: samples need problem_id, sample_id and "
                             f"completion (or code); missing {sorted(missing) or ['completion']}")
        samples.append(Sample(problem_id=str(record["problem_id"]),
                              sample_id=int(record["sample_id"]),
                              completion=record.get("completion") or "",
                              code=record.get("code"),
                              finish_reason=record.get("finish_reason"),
                              episode_error=record.get("episode_error")))
    keys = [(s.problem_id, s.sample_id) for s in samples]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{path}: (problem_id, sample_id) pairs must be unique")
    return samples


def judge_files(problems_path: str | os.PathLike, samples_path: str | os.PathLike,
                out_path: str | os.PathLike, workers: int | None = None,
                all_tests: bool = False, max_isolation: str = "namespaces",
                progress: bool = True) -> list[SampleResult]:
    problems = load_problems(problems_path)
    samples = load_samples(samples_path)
    shards = ShardStore(out_path, job_fingerprint("verdicts", [problems_path, samples_path],
                                                  all_tests=all_tests,
                                                  max_isolation=max_isolation))
    judged = kept_verdicts(shards)
    missing = [s for s in samples if (s.problem_id, s.sample_id) not in judged]
    if judged:
        log.info("resuming: %d of %d samples judged by an earlier run, %d to judge",
                 len(judged), len(samples), len(missing))
    with JudgePool(workers=workers, max_isolation=max_isolation) as pool:
        keeper = VerdictShards(shards, pool, first_number=len(shards.kept))
        for result in pool.judge(problems.problems, missing, all_tests=all_tests,
                                 progress=progress, on_result=keeper.add):
            judged[(result.problem_id, result.sample_id)] = result
        keeper.flush()
        isolation = pool.isolation
        worker_count = pool.worker_count
        losses = shards.kept_count("judge_worker_losses") + pool.worker_losses
    results = [judged[(s.problem_id, s.sample_id)] for s in samples]
    from codefrontier.base.provenance import parquet_metadata, record

    provenance = record([problems_path, samples_path], kind="verdicts", all_tests=all_tests,
                        isolation=isolation.to_dict(), judge_workers=worker_count,
                        judge_worker_losses=losses)
    metadata = {"codefrontier_version": __version__,
                "isolation": json.dumps(isolation.to_dict()),
                "all_tests": json.dumps(all_tests),
                "judge_workers": str(worker_count),
                # workers lost (died or silent) and replaced; their samples judged again
                "judge_worker_losses": str(losses),
                **parquet_metadata(provenance)}
    write_records([asdict(r) for r in results], out_path, schema=VERDICTS_SCHEMA,
                  metadata=metadata)
    shards.remove()
    return results


def kept_verdicts(shards: ShardStore) -> dict[tuple[str, int], SampleResult]:
    """The verdicts that earlier runs of the job kept, by (problem_id, sample_id)."""
    return {(row["problem_id"], row["sample_id"]): SampleResult(**row)
            for name in shards.kept for row in shards.get(name)}


class VerdictShards:
    """`on_result` of JudgePool.judge for a job: keeps the verdicts in the job's shards
    as they come, every SHARD_SAMPLES samples or SHARD_SECONDS, with the judge workers
    lost meanwhile; `flush` keeps the rest."""

    def __init__(self, shards: ShardStore, pool: JudgePool, first_number: int) -> None:
        self.shards, self.pool, self.number = shards, pool, first_number
        self.pending: list[SampleResult] = []
        self.losses = pool.worker_losses
        self.since = time.monotonic()

    def add(self, result: SampleResult) -> None:
        self.pending.append(result)
        if len(self.pending) >= SHARD_SAMPLES or time.monotonic() - self.since >= SHARD_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            losses = self.pool.worker_losses
            self.shards.put(f"verdicts-{self.number:06d}", [asdict(r) for r in self.pending],
                            {"judge_worker_losses": losses - self.losses})
            self.number, self.pending, self.losses = self.number + 1, [], losses
        self.since = time.monotonic()
