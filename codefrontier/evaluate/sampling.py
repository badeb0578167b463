"""`codefrontier sample`: samples from one checkpoint in one setting, as a parquet file.

Schema: `codefrontier.settings.base.SAMPLES_SCHEMA`; the footer's metadata
records the model and problems (paths and content hashes), the backend, the
setting and the sampling settings, so the file says how it was made.

The job keeps its finished work in `OUT.work/` as it goes (base/shards.py: a batch of
samples, a chunk of episodes), so a killed job run again samples only what is missing;
with the transformers backend its samples are those of an uninterrupted job.
"""

from __future__ import annotations

import logging
import os
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path

from codefrontier import __version__
from codefrontier.base.provenance import parquet_metadata, record
from codefrontier.base.shards import ShardStore, job_fingerprint
from codefrontier.base.tables import write_records
from codefrontier.generation import SamplingSettings, load_backend
from codefrontier.judge import JudgePool
from codefrontier.problems.schema import load_problems
from codefrontier.settings.base import SAMPLES_SCHEMA
from codefrontier.settings.registry import default_setting, get_setting

log = logging.getLogger("codefrontier.evaluate.sampling")


def sample_checkpoint(model: str, problems_path: str | os.PathLike, out: str | os.PathLike,
                      setting: str | None = None, backend: str = "transformers",
                      sampling: SamplingSettings | None = None,
                      backend_options: dict | None = None, limit: int | None = None,
                      progress: bool = True, episode_limits: dict | None = None,
                      judge_workers: int = 1) -> Path:
    sampling = sampling or SamplingSettings()
    problems = list(load_problems(problems_path))[:limit]
    runner = get_setting(setting or default_setting(), episode_limits)
    local = [path for path in (model,) if Path(path).is_dir()]
    fields = dict(model=str(model), setting=setting, episode_limits=episode_limits or {},
                  backend=backend, backend_options=backend_options or {},
                  sampling=asdict(sampling), seed=sampling.seed)
    shards = ShardStore(out, job_fingerprint("samples", [*local, problems_path], limit=limit,
                                             **fields))
    # judge workers first: fresh processes, before the backend loads a model
    with JudgePool(workers=judge_workers) if runner.needs_judge_pool() else nullcontext() as pool:
        engine = load_backend(backend, model, **(backend_options or {}))
        try:
            records = runner.run(engine, problems, sampling, progress=progress, pool=pool,
                                 shards=shards)
        finally:
            engine.close()
        losses = shards.kept_count("judge_worker_losses") + (
            pool.worker_losses if pool is not None else 0)
    provenance = record([*local, problems_path], kind="samples", **fields,
                        codefrontier_version=__version__, judge_worker_losses=losses)
    write_records([asdict(r) for r in records], out, schema=SAMPLES_SCHEMA,
                  metadata=parquet_metadata(provenance))
    shards.remove()
    truncated = sum(r.finish_reason == "length" for r in records)
    log.info("%d samples (%d problems x %d) -> %s; %d hit the token budget", len(records),
             len(problems), sampling.n, out, truncated)
    return Path(out)
