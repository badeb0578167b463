"""How a bundled problem family is written: one module per family in `suite/problems/`.

A family is a task with knobs. Each module defines `FAMILY = Family(...)`: a few
paraphrases of the statement, an efficient reference, correct but slow programs of
distinct complexity (the naive algorithms, each with the input-length decade where it
breaks), a plausible but buggy variant, hand-written edge cases, a seeded
generator, and `knobs`, which draws an instance's parameters (a constant of the
task, an index base, a method name, ...). Statements, programs and starter code are
`string.Template` texts over the knobs (`$modulus`, `${func}`): every instance of a
family is the same algorithmic task with its own wording, constants, names, I/O
details and tests, so held-out instances are new to a model that trained on others,
yet in reach of one that learned the family.

An instance also draws its scale: the largest input-length decade its tests reach
(its constraints, which its statement states as `$max_n`). The builder (`suite.build`)
turns an instance into a problem with tests in every decade from 10^1 bytes up to its
scale. docs/design.md ("The suite's axis") gives the reasons for the scales' shares.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from string import Template

Knobs = Mapping[str, object]
# generate(rng, n, knobs) -> the input of one test: stdin text for stdin problems, the
# tuple of positional arguments for call-based ones. n is a size the builder searches.
Generator = Callable[[random.Random, int, Knobs], object]


def no_knobs(rng: random.Random) -> dict[str, object]:
    return {}


# An instance's scale: the largest input-length decade of its tests (10^d bytes), drawn
# in proportion to the LiveCodeBench v5 and v6 problems whose largest input, estimated
# from their stated constraints, lies in that decade (304 problems with a size bound;
# those of 10^5 bytes and more, 162, count for the suite's largest decade, and those
# under 10^2 bytes, 17, for its smallest: in tests of 10 to 30 bytes the plausible bugs
# of 15 of the 48 families could not show). Chosen before any model result was looked
# at: docs/design.md ("The suite's axis"), docs/data/contest-constraints.csv,
# `python benchmarks/constraint_spread.py`.
SCALE_SHARES = {2: 95, 3: 29, 4: 18, 5: 162}
# The knob that statements use to state an instance's size bound (suite.build fills it).
SIZE_BOUND_KNOB = "max_n"


@dataclass(frozen=True)
class SlowProgram:
    """A correct program that is too slow from some input length on.

    Its break decade d: it passes every test shorter than 10^d bytes within a third of
    the time limit, and needs at least three limits on every test of 10^d bytes or more
    (`problems calibrate` checks both on every instance a build makes). So rung R_k
    accepts it exactly when k <= d or the instance's tests stay below 10^d bytes; a 3x
    faster or slower machine gives the same verdicts.
    """

    complexity: str  # its running time in the input length: exponential, cubic, quadratic
    source: str  # a Template over the knobs, like the references
    break_decade: int

    def passes(self, input_len: int) -> bool:
        """Whether it passes a test of this input length (one below its break decade)."""
        return input_len < 10 ** self.break_decade

    def __post_init__(self) -> None:
        if not 1 <= self.break_decade <= 9:
            raise ValueError(f"a break decade is a decade of input bytes, got "
                             f"{self.break_decade}")


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per module
class Family:
    slug: str
    title: str
    difficulty: str  # easy | medium | hard
    statements: tuple[str, ...]  # paraphrases of the task (Templates); one per instance
    efficient: str  # reference program (a Template), the source of expected outputs
    generate: Generator
    # hand-written inputs (train instances only: fixed texts would repeat across splits),
    # or a function of the knobs that returns them
    edge_cases: tuple[object, ...] | Callable[[Knobs], tuple[object, ...]] = ()
    knobs: Callable[[random.Random], dict[str, object]] = no_knobs
    slow: tuple[SlowProgram, ...] = ()  # correct but naive, of distinct complexity
    buggy: str | None = None  # efficient-looking and wrong on some tests
    kind: str = "stdin"
    func_names: tuple[str, ...] = ()  # call: the method's possible names (knob `func`)
    starter_code: str = ""  # call: a Template over the knobs
    time_limit_s: float = 0.5  # CPU seconds per test; `problems calibrate` checks margins
    memory_limit_mb: int = 256
    tags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.statements:
            raise ValueError(f"{self.slug}: a family needs at least one statement")
        if self.kind == "call" and not self.func_names:
            raise ValueError(f"{self.slug}: a call-based family needs func_names")
        complexities = [program.complexity for program in self.slow]
        if len(set(complexities)) != len(complexities):
            raise ValueError(f"{self.slug}: two slow programs of the same complexity")

    def instance(self, split: str, index: int, knob_pool: int | None = None) -> Instance:
        """The index-th instance of a split: its knobs and wording, drawn from a seed
        that names the family, the split and the index.

        With `knob_pool` N, the knobs are one of N settings of the family (the same N
        for every split), chosen at random: instances then differ in wording, examples
        and tests while their programs are among N, which a small model can learn.
        """
        seed = f"{self.slug}:{split}:{index}"
        rng = random.Random(_digest(seed))
        setting = None if knob_pool is None else rng.randrange(knob_pool)
        knob_rng = rng if setting is None else random.Random(_digest(f"{self.slug}:knobs:{setting}"))
        knobs = dict(self.knobs(knob_rng))
        if self.kind == "call":
            knobs["func"] = knob_rng.choice(self.func_names)
        return Instance(family=self, split=split, index=index, seed=seed,
                        knobs=tuple(sorted(knobs.items())),
                        statement_index=rng.randrange(len(self.statements)),
                        framing=rng.randrange(len(FRAMINGS)), knob_setting=setting,
                        scale=draw_scale(random.Random(_digest(seed + ":scale"))))


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def draw_scale(rng: random.Random) -> int:
    """An instance's largest test decade, drawn with SCALE_SHARES."""
    scales = sorted(SCALE_SHARES)
    return rng.choices(scales, weights=[SCALE_SHARES[d] for d in scales])[0]


# How a statement is framed: the title line (or none), and the example headings.
FRAMINGS = (
    {"title": "{title}", "input": "Input:", "output": "Output:"},
    {"title": "Problem: {title}", "input": "Sample input:", "output": "Sample output:"},
    {"title": "", "input": "Input:", "output": "Expected output:"},
)


@dataclass(frozen=True)
class Instance:
    family: Family
    split: str  # train | eval
    index: int
    seed: str
    knobs: tuple[tuple[str, object], ...]
    statement_index: int
    framing: int
    knob_setting: int | None = None  # which of the family's pooled knob settings, if pooled
    scale: int = max(SCALE_SHARES)  # the largest input-length decade of its tests

    @property
    def problem_id(self) -> str:
        return f"bundled/{self.family.slug}/{self.split}-{self.index}"

    @property
    def knob_values(self) -> dict[str, object]:
        return dict(self.knobs)

    def render(self, template: str, **extra: object) -> str:
        """A statement, program or starter code with this instance's knobs (and `extra`
        values, such as the statement's size bound) filled in."""
        try:
            return Template(template).substitute(self.knob_values, **extra)
        except (KeyError, ValueError) as error:
            raise ValueError(f"{self.family.slug}: template refers to an unknown knob or "
                             f"has a stray $ ({error}); knobs: {sorted(self.knob_values)}"
                             ) from None

    def statement(self, size_bound: int) -> str:
        """The statement, its constraints stating `size_bound` (SIZE_BOUND_KNOB)."""
        return self.render(self.family.statements[self.statement_index],
                           **{SIZE_BOUND_KNOB: size_bound})

    @property
    def efficient(self) -> str:
        return self.render(self.family.efficient)

    @property
    def slow(self) -> dict[str, str]:
        """The slow programs by complexity, rendered."""
        return {program.complexity: self.render(program.source)
                for program in self.family.slow}

    @property
    def buggy(self) -> str | None:
        return None if self.family.buggy is None else self.render(self.family.buggy)

    @property
    def func_name(self) -> str:
        return str(self.knob_values.get("func", ""))

    @property
    def starter_code(self) -> str:
        return self.render(self.family.starter_code)

    def generate(self, rng: random.Random, n: int) -> object:
        return self.family.generate(rng, n, self.knob_values)

    def edge_cases(self) -> tuple[object, ...]:
        cases = self.family.edge_cases
        return tuple(cases(self.knob_values)) if callable(cases) else tuple(cases)
