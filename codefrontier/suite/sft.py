"""SFT pairs from the bundled suite in the reasoning format.

For every problem of a split, two examples: the efficient reference and the
slow one, each behind a short reasoning paragraph that fits it. The SFT policy
so starts out with both behaviours, the raw material that rewards of different
strictness pull apart.

Schema (parquet, TRL's conversational prompt-completion format):
    problem_id   str
    variant      str   efficient | slow
    prompt       list of {role, content}   the user turn
    completion   list of {role, content}   the assistant turn
"""

from __future__ import annotations

import hashlib

import pyarrow as pa

from codefrontier.settings import reasoning
from codefrontier.suite.build import load_suite, split_of, to_problem
from codefrontier.suite.spec import SuiteProblem

EFFICIENT_REASONING = (
    "The input can be large, so checking every combination directly would be too slow. "
    "Instead I keep a structure that answers each step quickly and process the input in "
    "one pass (or after sorting), which stays near-linear.",
    "A direct search would repeat work for every element. I will keep what I have already "
    "computed (counts, a stack, prefix values or a heap) so each element is handled in about "
    "constant or logarithmic time.",
    "To stay fast on the largest inputs, I avoid nested loops: one pass with the right "
    "bookkeeping gives every answer, roughly O(n log n) in total.",
)
SLOW_REASONING = (
    "The simplest correct approach is to try every candidate directly and keep the best "
    "result. It follows the statement closely, so it is easy to get right.",
    "I will follow the definition literally: loop over all possibilities and check each one. "
    "This is straightforward and clearly correct.",
    "A direct approach works: for each position, scan what the statement asks about and "
    "count or compare explicitly.",
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


def sft_records(spec: SuiteProblem) -> list[dict]:
    problem = to_problem(spec)
    prompt = reasoning.messages(problem)
    variants = [("efficient", spec.efficient, EFFICIENT_REASONING)]
    if spec.slow is not None:
        variants.append(("slow", spec.slow, SLOW_REASONING))
    return [{
        "problem_id": problem.problem_id,
        "variant": name,
        "prompt": prompt,
        "completion": [{"role": "assistant",
                        "content": reasoning.answer(_pick(texts, spec.slug + name), program)}],
    } for name, program, texts in variants]


def build_sft(split: str = "train") -> list[dict]:
    suite = load_suite()
    return [record for spec in suite if split_of(spec, suite) == split
            for record in sft_records(spec)]
