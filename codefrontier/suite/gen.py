"""Small helpers the suite's generators share."""

from __future__ import annotations

import random


def ints(rng: random.Random, n: int, low: int, high: int) -> list[int]:
    """n integers drawn uniformly from [low, high] (choices: several times randint's speed)."""
    return rng.choices(range(low, high + 1), k=n)


def line(values) -> str:
    return " ".join(map(str, values))


def array_input(rng: random.Random, n: int, low: int, high: int, header: str = "") -> str:
    """`n [header]` on the first line, then n integers in [low, high]."""
    first = f"{n} {header}".strip()
    return f"{first}\n{line(ints(rng, n, low, high))}\n"


def range_queries(rng: random.Random, n: int, left_max: int, right_min: int = 0) -> list[str]:
    """n lines "l r" with 1 <= l <= max(1, left_max) and max(l, right_min) <= r <= n."""
    rows = []
    for _ in range(n):
        left = rng.randint(1, max(1, left_max))
        rows.append(f"{left} {rng.randint(max(left, right_min), n)}")
    return rows


def array_and_queries(values: list[int], rows: list[str]) -> str:
    """`n q`, the array, then the query lines."""
    return f"{len(values)} {len(rows)}\n{line(values)}\n" + "\n".join(rows) + "\n"
