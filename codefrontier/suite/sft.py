"""SFT pairs from the bundled families in the reasoning format.

For every train instance, two examples: its efficient reference and its slow one,
each behind a one-sentence plan that fits it. The SFT policy so starts out with
both behaviours, the raw material that rewards of different strictness pull
apart; the plan's first words are where the two part.

Schema (parquet, TRL's conversational prompt-completion format):
    problem_id   str
    variant      str   efficient | slow
    prompt       list of {role, content}   the user turn
    completion   list of {role, content}   the assistant turn
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

import pyarrow as pa

from codefrontier.settings import reasoning
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
MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
SFT_SCHEMA = pa.schema([
    ("problem_id", pa.string()),
    ("variant", pa.string()),
    ("prompt", pa.list_(MESSAGE)),
    ("completion", pa.list_(MESSAGE)),
])


def _pick(options: tuple[str, ...], key: str) -> str:
    return options[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(options)]


def sft_records(instance: Instance) -> list[dict]:
    problem = to_problem(instance)
    prompt = reasoning.messages(problem)
    variants = [("efficient", instance.efficient, EFFICIENT_PLANS)]
    if instance.slow is not None:
        variants.append(("slow", instance.slow, SLOW_PLANS))
    return [{
        "problem_id": problem.problem_id,
        "variant": name,
        "prompt": prompt,
        "completion": [{"role": "assistant",
                        "content": reasoning.answer(_pick(plans, instance.seed + name), program)}],
    } for name, program, plans in variants]


def build_sft(split: str = "train", count: int | None = None,
              difficulties: Collection[str] | None = None,
              families: Collection[str] | None = None,
              knob_pool: int | None = None) -> list[dict]:
    """Two pairs (efficient, slow) for each of `count` instances per family (of the
    given difficulties and slugs)."""
    return [record for instance in instances(split, count, difficulties, families, knob_pool)
            for record in sft_records(instance)]
