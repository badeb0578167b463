"""`codefrontier export inspect RESULTS OUT_DIR`: every checkpoint's samples as one Inspect
log (`.eval`), to read them in Inspect's viewer (`inspect view --log-dir OUT_DIR`).

A log is one model × setting × checkpoint: the task is the setting, the model
`<run>/<checkpoint>`, each sample a problem with its samples as epochs
(analysis/inspect_samples.py). Its metrics are the four outcome rates, counted from the
verdicts as the frontier table counts them; its metadata holds the checkpoint's
provenance: kind, reward, α, merge endpoints and distances from the frontier table's
`all` row, and the provenance records of the samples and of the checkpoint (its folder's
provenance.json, or a merge's record). Logs are named by layout.INSPECT_LOG, so that the
viewer lists them by setting, then checkpoint. inspect_ai is an optional dependency
(the `inspect` extra), imported only here and in inspect_samples.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from codefrontier import __version__
from codefrontier.analysis.frontier import Checkpoint
from codefrontier.analysis.inspect_samples import SCORER, eval_sample
from codefrontier.base.layout import (
    DATA,
    FRONTIER,
    INSPECT_LOG,
    MERGE_FOLDER,
    MERGE_RECORD,
    RESULTS,
    VERDICTS,
    checkpoint_order,
    run_name,
)
from codefrontier.base.provenance import read_provenance
from codefrontier.base.tables import read_records
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.problems.schema import Problem, load_problems
from codefrontier.settings.registry import setting_order

INSTALL_HINT = "pip install -e '.[inspect]'"


def require_inspect() -> None:
    """A clear error where inspect-ai is not installed."""
    if importlib.util.find_spec("inspect_ai") is None:
        raise RuntimeError(f"exporting Inspect logs needs inspect-ai, which is not installed: "
                           f"{INSTALL_HINT}")


@dataclass(frozen=True)
class ExportedCheckpoint:
    checkpoint: Checkpoint
    first_seed: int

    @property
    def run(self) -> str:
        """The checkpoint's run as its folder names it (tiny, tiny@seed1)."""
        return run_name(self.checkpoint.model, self.checkpoint.seed, self.first_seed)

    @property
    def model_name(self) -> str:
        """What the log calls the model: <run>/<checkpoint>."""
        return f"{self.run}/{self.checkpoint.name}"


def checkpoints_of(results: Path, verdicts: list[str | os.PathLike] | None,
                   first_seed: int) -> list[ExportedCheckpoint]:
    """The checkpoints of `verdicts` (default: every checkpoint's verdicts.parquet under
    `results`, second attempts aside), by model, seed, setting and checkpoint."""
    paths = verdicts if verdicts is not None else [
        path for path in sorted(results.rglob("verdicts.parquet")) if VERDICTS.parse(path)]
    found = [ExportedCheckpoint(Checkpoint.from_verdicts_path(p, first_seed), first_seed)
             for p in paths]
    settings = setting_order(c.checkpoint.setting for c in found)
    return sorted(found, key=lambda c: (c.checkpoint.model, c.checkpoint.seed,
                                        settings.index(c.checkpoint.setting),
                                        checkpoint_order(c.checkpoint.name)))


def inspect_log_name(exported: ExportedCheckpoint, settings: list[str],
                     checkpoints: list[str]) -> str:
    """layout.INSPECT_LOG of a checkpoint, its setting and name numbered in the order
    given."""
    ckpt = exported.checkpoint
    return INSPECT_LOG.fill(model=exported.run, setting=ckpt.setting, ckpt=ckpt.name,
                            setting_rank=f"{settings.index(ckpt.setting) + 1}",
                            ckpt_rank=f"{checkpoints.index(ckpt.name) + 1:02d}")


def outcome_rates(verdicts: list[dict]) -> dict[str, float]:
    """The share of samples of each outcome (the frontier table's rate_<outcome>)."""
    counts = Counter(v["outcome"] for v in verdicts)
    return {outcome: counts[outcome] / len(verdicts) for outcome in OUTCOMES}


def frontier_row(frontier: pd.DataFrame | None, ckpt: Checkpoint) -> dict:
    """The checkpoint's `all` row of the frontier table ({} without one), as JSON values
    (NaN as None)."""
    if frontier is None:
        return {}
    rows = frontier[(frontier["model"] == ckpt.model) & (frontier["seed"] == ckpt.seed)
                    & (frontier["setting"] == ckpt.setting)
                    & (frontier["checkpoint"] == ckpt.name) & (frontier["difficulty"] == "all")]
    if rows.empty:
        return {}
    return {key: None if pd.isna(value) else value.item() if hasattr(value, "item") else value
            for key, value in rows.iloc[0].items()}


def merge_endpoints(frontier: pd.DataFrame | None, ckpt: Checkpoint) -> dict | None:
    """The (low, high) RL rewards the merges of the checkpoint's model, seed and setting
    average (a merge row's reward `low->high`), or None without merges."""
    if frontier is None:
        return None
    merges = frontier[(frontier["model"] == ckpt.model) & (frontier["seed"] == ckpt.seed)
                      & (frontier["setting"] == ckpt.setting) & (frontier["kind"] == "merge")]
    if merges.empty:
        return None
    low, _, high = str(merges["reward"].iloc[0]).partition("->")
    return {"low": low, "high": high}


def in_results(results: Path, recorded: str) -> Path:
    """A path a provenance record names (relative to the workflow root: results/...) in
    this results folder, wherever it was copied."""
    path = Path(recorded)
    if path.is_absolute() or path.parts[:1] != (RESULTS,):
        return path
    return results.joinpath(*path.parts[1:])


def checkpoint_record(results: Path, samples_record: dict | None) -> dict | None:
    """The provenance of the checkpoint the samples were drawn from: a merge's record
    (kept when the merged folder is not), else its folder's provenance.json."""
    recorded = (samples_record or {}).get("model")
    if not recorded:
        return None
    folder = in_results(results, recorded)
    source = MERGE_FOLDER.counterpart(folder, MERGE_RECORD) if MERGE_FOLDER.parse(folder) \
        else folder
    return read_provenance(source) if source.exists() else None


def log_metadata(results: Path, exported: ExportedCheckpoint,
                 frontier: pd.DataFrame | None) -> dict:
    ckpt = exported.checkpoint
    row = frontier_row(frontier, ckpt)
    samples_record = read_provenance(ckpt.samples)
    return {"run": exported.run, "model": ckpt.model, "seed": ckpt.seed,
            "setting": ckpt.setting, "checkpoint": ckpt.name, "kind": ckpt.kind,
            "reward": row.get("reward"), "alpha": row.get("alpha"),
            "trained_in": row.get("trained_in"),
            "merge_endpoints": merge_endpoints(frontier, ckpt),
            "frontier": row,
            "samples_provenance": samples_record,
            "checkpoint_provenance": checkpoint_record(results, samples_record)}


def stable_id(*parts: str) -> str:
    """An id that the same checkpoint gets in every export."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:22]


def eval_log(results: Path, exported: ExportedCheckpoint, problems: dict[str, Problem],
             problems_path: Path, frontier: pd.DataFrame | None):
    """The Inspect log of one checkpoint."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )

    ckpt = exported.checkpoint
    samples = {(s["problem_id"], s["sample_id"]): s for s in read_records(ckpt.samples)}
    verdicts = read_records(ckpt.verdicts)
    model = exported.model_name
    eval_samples = [eval_sample(samples[(v["problem_id"], v["sample_id"])], v,
                                problems[v["problem_id"]], model) for v in verdicts]
    problem_ids = list(dict.fromkeys(v["problem_id"] for v in verdicts))
    created = datetime.fromtimestamp(ckpt.verdicts.stat().st_mtime, UTC).isoformat()
    # a task id of its own per log: the viewer shows one log of a task id (the others
    # count as retries)
    log_id = stable_id(model, ckpt.setting, str(ckpt.seed))
    spec = EvalSpec(
        eval_id=log_id, run_id=stable_id(str(results.resolve())), created=created,
        task=ckpt.setting, task_id=log_id, model=model,
        dataset=EvalDataset(name=problems_path.stem, location=str(problems_path),
                            samples=len(problem_ids), sample_ids=problem_ids),
        config=EvalConfig(epochs=max(Counter(v["problem_id"] for v in verdicts).values())),
        packages={"codefrontier": __version__}, tags=[ckpt.kind],
        metadata=log_metadata(results, exported, frontier))
    metrics = {name: EvalMetric(name=name, value=rate)
               for name, rate in outcome_rates(verdicts).items()}
    scores = EvalScore(name=SCORER, scorer=SCORER, scored_samples=len(verdicts),
                       unscored_samples=0, metrics=metrics)
    usage = sum((s.model_usage[model] for s in eval_samples[1:]),
                eval_samples[0].model_usage[model])
    return EvalLog(status="success", eval=spec,
                   results=EvalResults(total_samples=len(verdicts),
                                       completed_samples=len(verdicts), scores=[scores]),
                   stats=EvalStats(started_at=created, completed_at=created,
                                   model_usage={model: usage}),
                   samples=eval_samples)


def listed_in_order(paths: list[Path]) -> None:
    """Modification times one second apart, the first path the newest: the viewer lists a
    folder's logs newest first (its file names sort the same way elsewhere)."""
    newest = time.time()
    for index, path in enumerate(paths):
        os.utime(path, (newest - index, newest - index))


def write_inspect_logs(results: str | os.PathLike, out_dir: str | os.PathLike,
                       verdicts: list[str | os.PathLike] | None = None,
                       problems_path: str | os.PathLike | None = None,
                       first_seed: int = 0) -> list[Path]:
    """One `.eval` log per checkpoint of `results` (or of the `verdicts` files) in
    `out_dir`, and the folder's provenance.json; the logs' paths."""
    require_inspect()
    from inspect_ai.log import write_eval_log

    from codefrontier.base.provenance import record, write_provenance

    results = Path(results)
    problems_path = Path(problems_path or in_results(results, DATA.fill(split="eval")))
    frontier_path = in_results(results, FRONTIER)
    frontier = pd.read_parquet(frontier_path) if frontier_path.exists() else None
    problems = load_problems(problems_path).problems
    exported = checkpoints_of(results, verdicts, first_seed)
    if not exported:
        raise FileNotFoundError(f"{results}: no results/<model>/<setting>/<ckpt>/"
                                f"verdicts.parquet to export")
    settings = setting_order(c.checkpoint.setting for c in exported)
    names = sorted({c.checkpoint.name for c in exported}, key=checkpoint_order)
    out_dir = Path(out_dir)
    written = []
    for each in exported:
        path = out_dir / inspect_log_name(each, settings, names)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_eval_log(eval_log(results, each, problems, problems_path, frontier), path,
                       format="eval")
        written.append(path)
    listed_in_order(written)
    inputs = [problems_path, *([frontier_path] if frontier is not None else []),
              *(p for c in exported for p in (c.checkpoint.samples, c.checkpoint.verdicts))]
    write_provenance(out_dir, record(inputs, kind="inspect_logs",
                                     logs=[str(p.relative_to(out_dir)) for p in written]))
    return written
