"""SFT examples from the bundled families, one per setting and reference program.

For every train instance and each of its programs (the efficient reference and each
slow program), one example per setting:

* reasoning: a one-sentence plan that fits the program, then the fenced program;
* tool_use: the plan and a `python` call that runs the program on the statement's
  first example, the tool's real output, then the final fenced program;
* agentic: a `bash` call that writes solution.py and runs it on examples/1.in, the
  terminal's real output, a `submit` call, its result, and a closing line.

With fixes (`with_fixes`), each instance also gives one conversation per multi-turn
setting where the first draft is broken (its last line dropped, or cut in half), its
real run fails on the example, and the model fixes it: the final fenced program
(tool_use), or a second `bash` call that rewrites and reruns solution.py before the
submission (agentic). Without them the model never sees a failed run in SFT, and
after its first failure it has no way to go on.

With repairs (`with_repairs`), each instance that one of its slow programs fails (its
tests reach the program's break decade) also gives one reasoning conversation in the
format of a second attempt (evaluate/second_attempt.py): that slow program as the model's first answer (picked by
the instance's seed among those that fail), the feedback on its real judgement on the
instance's hidden tests (its break decade makes the verdicts the same on every
machine), and the efficient program as the second answer. Without it the SFT policy
has never seen a turn after its answer, and answers feedback with noise.

A fix or repair conversation trains its failed first attempt too, unless
`mask_failed_attempts` makes it context (`context_turns`). Trained, the broken drafts
are the tiny model's extra practice at code inside a tool call, and the repair
conversations' bare slow answer (`My program:`) is a mode that R_2 collapses rl-k2
onto; masked, the SFT policy wrote broken tool calls and a final turn without code
in half of its tool-use episodes, and kept few slow programs (benchmarks/README.md).

The tool results come from the settings' own environments, driven by these scripted
actions (the judge's sandbox and a real terminal), so SFT shows the model exactly
the observations it will see. The SFT policy so starts out with both behaviours
(efficient and slow), the raw material that rewards of different strictness pull
apart, in every setting's protocol.

Schema (parquet; conversations that train/sft.py trains on the assistant turns after
their first `context_turns` messages only):
    problem_id   str
    variant      str   efficient | slow:<complexity> (e.g. slow:cubic) | repair
    setting      str   reasoning | tool_use | agentic
    messages     str   JSON list of messages: system, user, assistant (with
                       tool_calls), tool, ...
    tools        str   JSON list of the tools' schemas (null for reasoning)
    draft        str   how the first draft was broken (dropped_last_line | cut_in_half)
                       in a fix conversation; null otherwise
    context_turns int  how many leading messages are context, not trained: the
                       setting's prompt, and with `mask_failed_attempts` the failed
                       first attempt of a fix or repair conversation with what it got
                       back
    (a repair conversation is a reasoning one with variant `repair`)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection
from functools import partial

import pyarrow as pa

from codefrontier.settings import reasoning
from codefrontier.settings.environments import end_episode
from codefrontier.settings.episodes import environment_tools
from codefrontier.settings.multi_turn import MultiTurnSetting
from codefrontier.settings.registry import default_setting, get_setting, repair_setting
from codefrontier.sftdata.demonstrations import demonstration
from codefrontier.suite.build import instances, to_problem
from codefrontier.suite.spec import Instance

EFFICIENT_PLANS = (
    "The input is large, so I keep running state and answer in one pass.",
    "Nested loops would be too slow for the largest inputs; one pass with the right "
    "bookkeeping is enough.",
    "I avoid rescanning: each element is handled in about constant or logarithmic time.",
)
SLOW_PLANS = (
    "The simplest correct approach is to check every candidate directly.",
    "I follow the definition literally and loop over all possibilities.",
    "A direct scan for each position is easy to get right.",
)
SFT_SCHEMA = pa.schema([
    ("problem_id", pa.string()),
    ("variant", pa.string()),
    ("setting", pa.string()),
    ("messages", pa.string()),
    ("tools", pa.string()),
    ("draft", pa.string()),
    ("context_turns", pa.int64()),
])
# The played turns of a fix or repair conversation's failed first attempt: the attempt
# and the observation or feedback it got
FAILED_ATTEMPT_TURNS = 2
DRAFTS = ("dropped_last_line", "cut_in_half")


def _pick(options: tuple, key: str):
    return options[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(options)]


def sft_settings(settings: Collection[str] | None) -> list[str]:
    """The settings to write conversations for: those given, else the default setting."""
    return list(settings or (default_setting(),))


def failing_slow_program(problem, instance: Instance) -> str | None:
    """A slow program that the problem's tests reach the break decade of (picked by the
    instance's seed), or None when every slow program solves the problem."""
    longest = max(test.input_len for test in problem.tests)
    failing = [instance.render(p.source) for p in instance.family.slow
               if not p.passes(longest)]
    return _pick(tuple(failing), instance.seed + "repair-slow") if failing else None


def repair_turns(problem, instance: Instance, pool) -> list[dict] | None:
    """A failing slow program, the feedback on its judgement, the efficient reference;
    None when every slow program solves the problem (nothing to repair)."""
    from dataclasses import asdict

    from codefrontier.evaluate.feedback import judged_feedback
    from codefrontier.evaluate.second_attempt import second_attempt_conversation
    from codefrontier.judge import Sample

    slow = failing_slow_program(problem, instance)
    if slow is None:
        return None
    result = pool.judge_one(problem, Sample(problem.problem_id, 0, code=slow))
    if result.outcome != "optimization_failure":
        raise RuntimeError(f"{problem.problem_id}: a slow program past its break decade "
                           f"is a {result.outcome}, not an optimization failure")
    feedback = judged_feedback(pool, problem, slow, asdict(result))
    plan = _pick(EFFICIENT_PLANS, instance.seed + "repair")
    conversation = second_attempt_conversation(problem, slow, feedback)
    return [*conversation[2:], {"role": "assistant",
                                "content": reasoning.answer(plan, instance.efficient)}]


def sft_records(instance: Instance, settings: Collection[str], pool=None,
                with_fixes: bool = False, with_repairs: bool = False,
                mask_failed_attempts: bool = False) -> list[dict]:
    """One example per setting and program (efficient, each slow) of the instance; with
    fixes, one more per multi-turn setting whose broken first draft gets fixed (the
    reference and the way the draft is broken picked by the instance's seed); with
    repairs, one repair of a slow program past its break decade (in the setting where
    repair runs); the failed first attempts of these are context with
    `mask_failed_attempts`."""
    problem = to_problem(instance)
    failed_attempt = FAILED_ATTEMPT_TURNS if mask_failed_attempts else 0
    variants = [("efficient", instance.efficient, EFFICIENT_PLANS)]
    variants += [(f"slow:{complexity}", program, SLOW_PLANS)
                 for complexity, program in instance.slow.items()]
    records = []
    for setting_name in settings:
        demo = demonstration(setting_name)
        for name, program, plans in variants:
            turns = partial(demo.turns, problem, _pick(plans, instance.seed + name), program)
            records.append(_record(problem, setting_name, name, turns, pool))
        if with_fixes and demo.fix_turns:
            name, program, plans = _pick(tuple(variants), instance.seed + "fix")
            draft = _pick(DRAFTS, instance.seed + "draft")
            turns = partial(demo.fix_turns, problem, _pick(plans, instance.seed + name),
                            program, draft)
            record = _record(problem, setting_name, name, turns, pool, draft,
                             context=failed_attempt)
            if record is not None:
                records.append(record)
        if with_repairs and setting_name == repair_setting() and instance.slow:
            record = _record(problem, setting_name, "repair",
                             lambda _: repair_turns(problem, instance, pool), pool,
                             context=failed_attempt)
            if record is not None:
                records.append(record)
    return records


def _record(problem, setting_name: str, variant: str, turns, pool,
            draft: str | None = None, context: int = 0) -> dict | None:
    """A conversation of the setting, its turns played against a fresh environment; the
    first `context` played turns are context, as is the setting's prompt."""
    from transformers.utils import get_json_schema

    setting = get_setting(setting_name)
    environment = None
    if isinstance(setting, MultiTurnSetting):
        environment = setting.environment({problem.problem_id: problem}, pool)
        environment.reset(problem_id=problem.problem_id)
    try:
        played = turns(environment)
        tools = ([get_json_schema(t) for t in environment_tools(environment)]
                 if environment else None)
    finally:
        end_episode(environment)
    if played is None:
        return None
    prompt = setting.messages(problem)
    return {"problem_id": problem.problem_id, "variant": variant, "setting": setting_name,
            "messages": json.dumps(prompt + played, ensure_ascii=False),
            "tools": json.dumps(tools) if tools else None, "draft": draft,
            "context_turns": len(prompt) + context}


def build_sft(split: str = "train", count: int | None = None,
              difficulties: Collection[str] | None = None,
              families: Collection[str] | None = None,
              knob_pool: int | None = None,
              settings: Collection[str] | None = None,
              with_fixes: bool = False, with_repairs: bool = False,
              mask_failed_attempts: bool = False, workers: int = 1) -> list[dict]:
    """One example per setting and program (efficient, each slow) for each of `count`
    instances per family (of the given difficulties and slugs), with fixes one fix
    conversation per multi-turn setting, with repairs one repair conversation. The
    tool-use examples and the repairs run their programs in a judge pool, the agentic
    ones in terminals; `workers` instances are played at once (each record depends on its
    instance alone, and the order is the instances')."""
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import nullcontext

    from codefrontier.judge import JudgePool

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    settings = sft_settings(settings)
    chosen = list(instances(split, count, difficulties, families, knob_pool))
    for instance in chosen:
        # built here, one at a time: building runs the reference programs in this
        # process with its stdin and stdout swapped; the threads find them in the cache
        to_problem(instance)
    needs_pool = any(get_setting(s).needs_judge_pool() for s in settings) or \
        (with_repairs and repair_setting() in settings)
    with (JudgePool(workers=workers) if needs_pool else nullcontext() as pool,
          ThreadPoolExecutor(max_workers=workers) as executor):
        per_instance = executor.map(
            lambda instance: sft_records(instance, settings, pool, with_fixes, with_repairs,
                                         mask_failed_attempts), chosen)
        return [record for records in per_instance for record in records]


def write_sft_data(out: str | os.PathLike, split: str = "train", count: int | None = None,
                   difficulties: Collection[str] = (), families: Collection[str] = (),
                   knob_pool: int | None = None, settings: Collection[str] | None = None,
                   with_fixes: bool = False, with_repairs: bool = False,
                   mask_failed_attempts: bool = False, workers: int = 1) -> list[dict]:
    """`problems sft`: build_sft's conversations written to `out` (SFT_SCHEMA) with
    provenance; the records."""
    from codefrontier.base.provenance import parquet_metadata, record
    from codefrontier.base.tables import write_records

    settings = sft_settings(settings)
    records = build_sft(split, count, set(difficulties) or None, set(families) or None,
                        knob_pool, settings, with_fixes, with_repairs, mask_failed_attempts,
                        workers)
    provenance = record([], kind="sft-data", split=split, instances=count,
                        difficulty=sorted(difficulties), settings=settings,
                        with_fixes=with_fixes, with_repairs=with_repairs,
                        mask_failed_attempts=mask_failed_attempts)
    write_records(records, out, schema=SFT_SCHEMA, metadata=parquet_metadata(provenance))
    return records
