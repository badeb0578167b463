"""Summary statistics of a problems file: `codefrontier problems stats`."""

from __future__ import annotations

from collections import Counter

from codefrontier.problems.schema import DIFFICULTIES, ProblemSet
from codefrontier.rewards import decade


def problem_stats(problems: ProblemSet) -> str:
    """A plain-text report: counts by difficulty and kind, tests per decade, limits."""
    lines = [f"{len(problems)} problems"]
    kinds = sorted({p.kind for p in problems})
    by_cell = Counter((p.difficulty, p.kind) for p in problems)
    header = f"{'difficulty':<12}" + "".join(f"{k:>8}" for k in kinds) + f"{'total':>8}"
    lines += ["", header]
    for difficulty in DIFFICULTIES:
        row = [by_cell[(difficulty, k)] for k in kinds]
        lines.append(f"{difficulty:<12}" + "".join(f"{n:>8}" for n in row) + f"{sum(row):>8}")
    decades = Counter(decade(t.input_len) for p in problems for t in p.tests)
    per_problem = Counter()
    for p in problems:
        for d in {decade(t.input_len) for t in p.tests}:
            per_problem[d] += 1
    lines += ["", f"{'input bytes':<16}{'tests':>8}{'problems':>10}"]
    for d in sorted(decades):
        label = f"[10^{d}, 10^{d + 1})"
        lines.append(f"{label:<16}{decades[d]:>8}{per_problem[d]:>10}")
    limits = Counter((p.time_limit_s, p.memory_limit_mb) for p in problems)
    lines += ["", "limits (time, memory): " + ", ".join(
        f"{t:g} s / {m} MiB x{n}" for (t, m), n in sorted(limits.items()))]
    return "\n".join(lines)
