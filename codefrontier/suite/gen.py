"""Small helpers the suite's generators share."""

from __future__ import annotations

import random


def ints(rng: random.Random, n: int, low: int, high: int) -> list[int]:
    return [rng.randint(low, high) for _ in range(n)]


def line(values) -> str:
    return " ".join(map(str, values))


def array_input(rng: random.Random, n: int, low: int, high: int, header: str = "") -> str:
    """`n [header]` on the first line, then n integers in [low, high]."""
    first = f"{n} {header}".strip()
    return f"{first}\n{line(ints(rng, n, low, high))}\n"
