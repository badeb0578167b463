"""The ladder of rungs R_1 … R_5, R_inf over a bundled problem set: which programs each
accepts (`codefrontier problems stats` on a bundled build).

Each program's verdicts on a problem's tests, in ascending input length, are known
without judging: the efficient reference passes every test and a slow program every
test below its break decade, then runs out of time (both by calibration, which
`problems calibrate` checks with the judge); the buggy variant is run here, as the
builder runs it, until its first wrong answer. The rungs' rewards are then the
rewards module's own, so the ladder is exactly what R_k would give these programs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from codefrontier.problems.schema import Problem
from codefrontier.rewards import AC, RUNGS, reward_k, rung_label
from codefrontier.suite.build import buggy_verdicts, load_families
from codefrontier.suite.spec import Instance


@dataclass(frozen=True)
class Judged:
    kind: str  # efficient | slow:<complexity> | buggy
    verdicts: tuple[str, ...]  # a prefix of the tests in ascending input length
    input_lens: tuple[int, ...]

    def accepted_by(self, k: float) -> bool:
        return reward_k(self.verdicts, self.input_lens, k) == 1.0

    @property
    def solves(self) -> bool:
        return len(self.verdicts) == len(self.input_lens) and set(self.verdicts) <= {AC}


def instance_of(problem: Problem, knob_pool: int | None) -> Instance:
    """The bundled instance a problem was built from (`bundled/<slug>/<split>-<index>`)."""
    try:
        _, slug, name = problem.problem_id.split("/")
        split, index = name.rsplit("-", 1)
        family = next(f for f in load_families() if f.slug == slug)
        return family.instance(split, int(index), knob_pool)
    except (ValueError, StopIteration):
        raise ValueError(f"{problem.problem_id} is not a bundled problem id") from None


def judged_programs(problem: Problem, instance: Instance) -> list[Judged]:
    """The verdicts of the instance's efficient, slow and buggy programs on the problem."""
    tests = problem.tests_by_input_length()
    lens = tuple(t.input_len for t in tests)
    programs = [Judged("efficient", (AC,) * len(tests), lens)]
    for slow in instance.family.slow:
        passed = sum(slow.passes(length) for length in lens)
        verdicts = (AC,) * passed + (("TLE",) if passed < len(lens) else ())
        programs.append(Judged(f"slow:{slow.complexity}", verdicts, lens))
    if instance.buggy is not None:
        programs.append(Judged("buggy", buggy_verdicts(instance, tests), lens))
    return programs


def ladder_table(problems: list[Problem], knob_pool: int | None) -> str:
    """Per program kind: how many programs there are, the share each rung accepts, and
    the share of their instances they solve outright; then the slow programs together."""
    by_kind: dict[str, list[Judged]] = defaultdict(list)
    for problem in problems:
        for judged in judged_programs(problem, instance_of(problem, knob_pool)):
            by_kind[judged.kind].append(judged)
    slow_kinds = sorted(k for k in by_kind if k.startswith("slow:"))
    order = ["efficient", *slow_kinds, "slow (all)", "buggy"]
    by_kind["slow (all)"] = [j for kind in slow_kinds for j in by_kind[kind]]
    lines = ["Rungs: the share of programs each accepts (slow programs by their calibrated "
             "break decades, which `problems calibrate` checks)",
             f"{'program':<20}{'n':>5}" + "".join(f"{rung_label(k):>7}" for k in RUNGS)
             + f"{'solves':>8}"]
    for kind in order:
        judged = by_kind.get(kind, [])
        if not judged:
            continue
        shares = [sum(j.accepted_by(k) for j in judged) / len(judged) for k in RUNGS]
        solved = sum(j.solves for j in judged) / len(judged)
        lines.append(f"{kind:<20}{len(judged):>5}" + "".join(f"{s:>7.3f}" for s in shares)
                     + f"{solved:>8.3f}")
    return "\n".join(lines)
