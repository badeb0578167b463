"""Second attempts at evaluation: one more attempt at every failed first attempt, given
why it failed (feedback.py). (Repair *training*, which rewards such episodes in GRPO, is
train/repair.py.)

The first attempt is a judged sample of any setting. Its final program (the fenced
block the judge extracted, or the agentic submission) goes back to the model as its own
answer to the reasoning prompt, followed by the feedback as a user turn; the model
answers once, in the reasoning format, and that answer is judged like any sample. So
the second turn is the same single turn in every setting, and the feedback concerns
exactly the program that was judged. Samples that passed get no second attempt;
format errors get none either (there is no program to correct), and both are kept out
of the second-attempt rates.

`results/{model}/{setting}/{ckpt}/second-attempt/samples.parquet` has the samples schema, one
row per failed first attempt with the first attempt's sample_id; the rates
are analysis/second_attempt_table.py's.

Like `sample`, the job keeps its work in `OUT.work/` as it goes (base/shards.py): the
conversations with their feedback once made (the feedback runs programs, whose timing may
vary), then each batch of second attempts, so a killed job run again does only what is
missing.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from codefrontier import __version__
from codefrontier.base.options import option
from codefrontier.base.provenance import parquet_metadata, record
from codefrontier.base.shards import ShardStore, job_fingerprint
from codefrontier.base.tables import read_records, write_records
from codefrontier.evaluate.feedback import MAX_FEEDBACK_TOKENS, approx_tokens, judged_feedback
from codefrontier.generation import SamplingSettings, load_backend
from codefrontier.generation.options import GenerationOptions
from codefrontier.judge import JudgePool
from codefrontier.judge.extract import extract_code
from codefrontier.judge.verdicts import Outcome
from codefrontier.problems.schema import load_problems
from codefrontier.settings.base import SAMPLES_SCHEMA, SampleRecord
from codefrontier.settings.reasoning import answer, messages

log = logging.getLogger("codefrontier.evaluate.second_attempt")

SECOND_ATTEMPT_OUTCOMES = (Outcome.OPTIMIZATION_FAILURE.value, Outcome.CORRECTNESS_FAILURE.value)
CONVERSATIONS_SHARD = "conversations"  # the job's shard of its conversations with feedback


@dataclass(frozen=True)
class SecondAttemptOptions(GenerationOptions):
    """`second-attempt sample`: the generation options (one attempt per failure) and the feedback
    message's cap (the config's `second_attempts` block)."""

    max_feedback_tokens: int = option(MAX_FEEDBACK_TOKENS,
                                      "cap on the feedback message (model tokens)")


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


def second_attempt_conversation(problem, program: str, feedback: str) -> list[dict]:
    """The reasoning prompt, the failed program as the model's answer, the feedback."""
    return [*messages(problem),
            {"role": "assistant", "content": answer("My program:", program)},
            {"role": "user", "content": feedback}]


def sample_second_attempts(model: str, problems_path: str | os.PathLike,
                      samples_path: str | os.PathLike, verdicts_path: str | os.PathLike,
                      out: str | os.PathLike, backend: str = "transformers",
                      sampling: SamplingSettings | None = None,
                      backend_options: dict | None = None,
                      max_feedback_tokens: int = MAX_FEEDBACK_TOKENS,
                      judge_workers: int = 1, progress: bool = True) -> Path:
    """One second attempt (sampling.n must be 1) per failed first attempt (SECOND_ATTEMPT_OUTCOMES)."""
    sampling = sampling or SamplingSettings(n=1)
    if sampling.n != 1:
        raise ValueError("one second attempt per failed sample: use n = 1")
    problems = {p.problem_id: p for p in load_problems(problems_path)}
    samples = {(s["problem_id"], s["sample_id"]): s for s in read_records(samples_path)}
    failed = [v for v in read_records(verdicts_path) if v["outcome"] in SECOND_ATTEMPT_OUTCOMES]
    inputs = [*[p for p in (model,) if Path(p).is_dir()], problems_path, samples_path,
              verdicts_path]
    fields = dict(model=str(model), backend=backend, sampling=asdict(sampling),
                  max_feedback_tokens=max_feedback_tokens)
    shards = ShardStore(out, job_fingerprint("second_attempt_samples", inputs,
                                             backend_options=backend_options or {}, **fields))
    # judge workers first: fresh processes, before the backend loads a model
    with JudgePool(workers=judge_workers) as pool:
        engine = load_backend(backend, model, **(backend_options or {}))
        try:
            count_tokens = token_counter(engine.tokenizer)
            conversations, firsts = feedback_conversations(
                shards, failed, problems, samples,
                lambda problem, program, verdicts: judged_feedback(
                    pool, problem, program, verdicts, max_feedback_tokens, count_tokens))
            generations = engine.generate(conversations, sampling, progress, shards=shards) \
                if conversations else []
        finally:
            engine.close()
    records = [SampleRecord(
        problem_id=first["problem_id"], sample_id=first["sample_id"], setting=first["setting"],
        completion=g.text, finish_reason=g.finish_reason, prompt_tokens=g.prompt_tokens,
        completion_tokens=g.completion_tokens,
        transcript=[*conversation[1:], {"role": "assistant", "content": g.text}])
        for first, conversation, (g,) in zip(firsts, conversations, generations, strict=True)]
    provenance = record(inputs, kind="second_attempt_samples", **fields,
                        codefrontier_version=__version__)
    write_records([asdict(r) for r in records], out, schema=SAMPLES_SCHEMA,
                  metadata=parquet_metadata(provenance))
    shards.remove()
    log.info("%d second attempts of %d failed first attempts -> %s", len(records),
             len(failed), out)
    return Path(out)


def feedback_conversations(shards, failed: list[dict], problems: dict, samples: dict,
                           feedback) -> tuple[list[list[dict]], list[dict]]:
    """The second attempts' conversations, one per failed first attempt (`failed`: their
    verdicts), and those first attempts. Made once per job and kept in its `shards`: the
    feedback (`feedback(problem, program, verdicts)`) runs programs, whose timing may
    differ in a rerun."""
    kept = shards.get(CONVERSATIONS_SHARD)
    if kept is not None:
        return kept["conversations"], [samples[tuple(key)] for key in kept["firsts"]]
    conversations, firsts = [], []
    for verdicts in failed:
        sample = samples[(verdicts["problem_id"], verdicts["sample_id"])]
        problem, program = problems[verdicts["problem_id"]], first_program(sample)
        conversations.append(second_attempt_conversation(
            problem, program, feedback(problem, program, verdicts)))
        firsts.append(sample)
    shards.put(CONVERSATIONS_SHARD, {
        "conversations": conversations,
        "firsts": [[first["problem_id"], first["sample_id"]] for first in firsts]})
    return conversations, firsts
