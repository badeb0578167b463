"""How a bundled problem is written: one module per problem in `suite/problems/`.

Each module defines `PROBLEM = SuiteProblem(...)`: the statement, an efficient
reference, usually a slow but correct reference (the naive algorithm) and a
plausible but buggy variant, hand-written edge cases, and a seeded generator
that makes an input from a size parameter `n`. The builder (`suite.build`)
turns these into tests at every input-length decade from 10^1 to 10^5 bytes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

# generate(rng, n) -> the input text of one test: stdin text for stdin problems,
# the tuple of positional arguments for call-based ones.
Generator = Callable[[random.Random, int], object]


@dataclass(frozen=True)
class SuiteProblem:
    slug: str
    title: str
    difficulty: str  # easy | medium | hard
    statement: str  # the task; examples are appended from the first edge cases
    efficient: str  # reference program, the source of expected outputs
    generate: Generator
    edge_cases: tuple[object, ...]  # inputs in the same form `generate` returns
    slow: str | None = None  # correct but naive: passes small tests, TLE/MLE on large
    buggy: str | None = None  # efficient-looking and wrong on some tests
    kind: str = "stdin"
    func_name: str = ""
    starter_code: str = ""
    time_limit_s: float = 1.0  # CPU seconds per test; `problems calibrate` checks the margins
    memory_limit_mb: int = 256
    tags: tuple[str, ...] = field(default=())

    @property
    def problem_id(self) -> str:
        return f"bundled/{self.slug}"
