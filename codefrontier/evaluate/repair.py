"""Repair at evaluation: a second attempt at every failed first attempt, given why it
failed (feedback.py).

The first attempt is a judged sample of any setting. Its final program (the fenced
block the judge extracted, or the agentic submission) goes back to the model as its own
answer to the reasoning prompt, followed by the feedback as a user turn; the model
answers once, in the reasoning format, and that answer is judged like any sample. So
the repair turn is the same single turn in every setting, and the feedback concerns
exactly the program that was judged. Samples that passed are not repaired; format
errors are not repaired either (there is no program to repair), and both are kept out
of the repair rates.

`results/{model}/{setting}/{ckpt}/repair/samples.parquet` has the samples schema, one
row per repaired first attempt with the first attempt's sample_id;
`results/repair.parquet` (REPAIR_SCHEMA) has the repair rates.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict
from pathlib import Path

import pyarrow as pa

from codefrontier import __version__
from codefrontier.analysis.frontier import (
    Checkpoint,
    cluster_standard_error,
    episode_counts,
    problem_counts,
)
from codefrontier.evaluate.feedback import MAX_FEEDBACK_TOKENS, approx_tokens, judged_feedback
from codefrontier.generation import SamplingSettings, load_backend
from codefrontier.judge import JudgePool
from codefrontier.judge.extract import extract_code
from codefrontier.judge.verdicts import Outcome
from codefrontier.pipeline.layout import repaired_verdicts_path
from codefrontier.pipeline.provenance import PARQUET_KEY, record
from codefrontier.pipeline.tables import read_records, write_records
from codefrontier.problems.schema import load_problems
from codefrontier.settings.base import SAMPLES_SCHEMA, SampleRecord
from codefrontier.settings.reasoning import answer, messages

log = logging.getLogger("codefrontier.evaluate.repair")

REPAIRABLE = (Outcome.OPTIMIZATION_FAILURE.value, Outcome.CORRECTNESS_FAILURE.value)
REPAIR_SCHEMA = pa.schema([
    ("model", pa.string()), ("setting", pa.string()), ("checkpoint", pa.string()),
    ("first_failure", pa.string()),     # optimization_failure | correctness_failure | all
    ("problems", pa.int64()),
    ("attempts", pa.int64()),           # failed first attempts given a second one
    ("repaired", pa.int64()),           # second attempts judged correct
    ("repair_rate", pa.float64()),      # repaired / attempts
    ("se_repair_rate", pa.float64()),   # clustered by problem
    *[(f"second_{o.value}", pa.float64()) for o in Outcome],  # the second attempts' mix
    # `all` rows only, at an equal budget of 2 samples per episode: the share of first
    # attempts solved by themselves or by their repair, against pass@2 of first attempts
    ("solved_with_repair", pa.float64()),
    ("first_pass_at_2", pa.float64()),
])


def first_program(sample: dict) -> str | None:
    """The program the judge ran: the handed-in code, else the completion's last block
    (as JudgePool.judge_one chooses)."""
    code = sample.get("code")
    return code if code is not None else extract_code(sample.get("completion") or "")


def token_counter(tokenizer):
    """Counting the feedback's tokens with the model's own tokenizer (or approximately)."""
    if tokenizer is None:
        return approx_tokens
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def repair_conversation(problem, program: str, feedback: str) -> list[dict]:
    """The reasoning prompt, the failed program as the model's answer, the feedback."""
    return [*messages(problem),
            {"role": "assistant", "content": answer("My program:", program)},
            {"role": "user", "content": feedback}]


def repair_checkpoint(model: str, problems_path: str | os.PathLike,
                      samples_path: str | os.PathLike, verdicts_path: str | os.PathLike,
                      out: str | os.PathLike, backend: str = "transformers",
                      sampling: SamplingSettings | None = None,
                      backend_options: dict | None = None,
                      max_feedback_tokens: int = MAX_FEEDBACK_TOKENS,
                      judge_workers: int = 1, progress: bool = True) -> Path:
    """One second attempt (sampling.n must be 1) per repairable first attempt."""
    sampling = sampling or SamplingSettings(n=1)
    if sampling.n != 1:
        raise ValueError("a repair is one second attempt per failed sample: use n = 1")
    problems = {p.problem_id: p for p in load_problems(problems_path)}
    samples = {(s["problem_id"], s["sample_id"]): s for s in read_records(samples_path)}
    failed = [v for v in read_records(verdicts_path) if v["outcome"] in REPAIRABLE]
    # judge workers first: fresh processes, before the backend loads a model
    with JudgePool(workers=judge_workers) as pool:
        engine = load_backend(backend, model, **(backend_options or {}))
        try:
            count_tokens = token_counter(engine.tokenizer)
            conversations, firsts = [], []
            for verdicts in failed:
                sample = samples[(verdicts["problem_id"], verdicts["sample_id"])]
                problem, program = problems[verdicts["problem_id"]], first_program(sample)
                feedback = judged_feedback(pool, problem, program, verdicts, max_feedback_tokens,
                                           count_tokens)
                conversations.append(repair_conversation(problem, program, feedback))
                firsts.append(sample)
            generations = engine.generate(conversations, sampling, progress) \
                if conversations else []
        finally:
            engine.close()
    records = [SampleRecord(
        problem_id=first["problem_id"], sample_id=first["sample_id"], setting=first["setting"],
        completion=g.text, finish_reason=g.finish_reason, prompt_tokens=g.prompt_tokens,
        completion_tokens=g.completion_tokens,
        transcript=[*conversation[1:], {"role": "assistant", "content": g.text}])
        for first, conversation, (g,) in zip(firsts, conversations, generations, strict=True)]
    provenance = record([*[p for p in (model,) if Path(p).is_dir()], problems_path, samples_path,
                         verdicts_path], kind="repair_samples", model=str(model),
                        backend=backend, sampling=asdict(sampling),
                        max_feedback_tokens=max_feedback_tokens,
                        codefrontier_version=__version__)
    write_records([asdict(r) for r in records], out, schema=SAMPLES_SCHEMA,
                  metadata={PARQUET_KEY: json.dumps(provenance, sort_keys=True)})
    log.info("%d second attempts of %d failed first attempts -> %s", len(records),
             len(failed), out)
    return Path(out)


def repair_rows(first_verdicts: list[dict], second_verdicts: list[dict], model: str,
                setting: str, checkpoint: str) -> list[dict]:
    """Repair rates by the first attempt's failure (and `all`)."""
    first = {(v["problem_id"], v["sample_id"]): v["outcome"] for v in first_verdicts}
    pairs = [(first[(v["problem_id"], v["sample_id"])], v) for v in second_verdicts]
    rows = []
    for failure in (*REPAIRABLE, "all"):
        chosen = [v for kind, v in pairs if failure in (kind, "all")]
        if not chosen:
            continue
        per_problem = problem_counts(chosen)  # (second attempts, repaired) per problem
        repaired = sum(x for _, x in per_problem.values())
        rows.append({
            "model": model, "setting": setting, "checkpoint": checkpoint,
            "first_failure": failure, "problems": len(per_problem), "attempts": len(chosen),
            "repaired": repaired, "repair_rate": repaired / len(chosen),
            "se_repair_rate": cluster_standard_error(list(per_problem.values())),
            **{f"second_{o.value}": sum(v["outcome"] == o for v in chosen) / len(chosen)
               for o in Outcome},
            **(equal_budget(first_verdicts, second_verdicts) if failure == "all" else
               {"solved_with_repair": None, "first_pass_at_2": None})})
    return rows


def equal_budget(first_verdicts: list[dict], second_verdicts: list[dict]) -> dict:
    """Every first attempt with its repair costs two samples (a correct one or a format
    error spends one, so this is conservative): per problem, the share of first attempts
    solved by themselves or their repair, against pass@2 of the first attempts; averaged
    over problems."""
    from codefrontier.analysis.metrics import pass_at_k

    firsts = problem_counts(first_verdicts)
    episodes = episode_counts(first_verdicts, second_verdicts)
    usable = [pid for pid, (n, _) in firsts.items() if n >= 2]
    if not usable:
        return {"solved_with_repair": None, "first_pass_at_2": None}
    return {"solved_with_repair": sum(s / n for n, s in map(episodes.get, usable)) / len(usable),
            "first_pass_at_2": sum(pass_at_k(*firsts[pid], 2) for pid in usable) / len(usable)}


def write_repair_table(first_verdicts: list[str | os.PathLike], out: str | os.PathLike) -> Path:
    """results/repair.parquet from results/{model}/{setting}/{ckpt}/verdicts.parquet files,
    each with its repair/verdicts.parquet beside it."""
    rows = []
    for path in first_verdicts:
        ckpt = Checkpoint.from_verdicts_path(path)
        rows += repair_rows(read_records(ckpt.verdicts),
                            read_records(repaired_verdicts_path(ckpt.verdicts)),
                            ckpt.model, ckpt.setting, ckpt.name)
    write_records(rows, out, schema=REPAIR_SCHEMA)
    return Path(out)
