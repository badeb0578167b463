"""Turning family instances into problems in the judge's schema, deterministically.

An instance's tests: for train instances the family's hand-written edge cases no
longer than its largest generated test, then (every instance) two generated tests in
every input-length decade from 10^1 bytes up to the instance's scale, drawn from the
instance's own seed. The statement states the instance's size bound (the largest size
its generator was asked for, rounded up to 1, 2 or 5 times a power of ten) and shows its two smallest generated
tests as examples. Expected outputs come from the efficient reference; every slow
program must agree on every test small enough for it, and the buggy variant must fail
at least one test (else the generated tests are drawn again from a new seed: tests
that a plausible bug passes would reward it). References are
our own trusted code, so they run in-process here; the judge runs them sandboxed
in the calibration tests.

Splits are by instance, not by family: the eval split holds instances of the same
families as the train split, each with its own knobs, wording and tests. An eval
build can be made disjoint from a train build (`exclude_inputs`): a generated test
whose input a train problem already has is drawn again.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import pkgutil
import random
import sys
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cache

from codefrontier.judge import CALL_PRELUDE, outputs_match
from codefrontier.problems.schema import Problem, Test
from codefrontier.suite.spec import FRAMINGS, Family, Instance

DECADES = (1, 2, 3, 4, 5)
# Two tests per decade d, aimed at [1.05, 1.3) * 10^d and [1.3, 1.6) * 10^d bytes: the
# largest test of a decade is 6.25 times shorter than the smallest of the next, so a
# quadratic program's time grows 39-fold between them, and a slow program can pass one
# decade within a third of the limit and need three limits on the next (its break
# decade, spec.SlowProgram) on machines 3x apart in speed. Inputs of a few bytes cannot
# be aimed that finely (one edge of a graph takes 8 to 16 bytes): decade 1's tests lie
# in [10, 20) and [20, 30) bytes, 3.5 times below decade 2's, a gap that only programs
# breaking at decade 2 (exponential ones) cross.
DECADE_TARGETS = ((1.05, 1.3), (1.3, 1.6))
FIRST_DECADE_TARGETS = ((1.0, 2.0), (2.0, 3.0))
SLOW_CROSS_CHECK_BYTES = 2_000
SPLITS = ("train", "eval")
DEFAULT_INSTANCES = {"train": 4, "eval": 1}
EXAMPLES_SHOWN = 2
# Tests are drawn again (a new seed per draw) until the buggy variant fails one of them:
# tests that let a plausible bug pass would reward it.
BUG_REVEALING_DRAWS = 8


@cache
def load_families() -> tuple[Family, ...]:
    """Every bundled family, in slug order."""
    import codefrontier.suite.problems as package

    found = []
    for module in pkgutil.iter_modules(package.__path__):
        family = importlib.import_module(f"{package.__name__}.{module.name}").FAMILY
        if family.slug != module.name.replace("_", "-"):
            raise ValueError(f"suite module {module.name} defines slug {family.slug!r}")
        found.append(family)
    return tuple(sorted(found, key=lambda f: f.slug))


def instances(split: str, count: int | None = None,
              difficulties: Collection[str] | None = None,
              families: Collection[str] | None = None,
              knob_pool: int | None = None) -> list[Instance]:
    """`count` instances (default DEFAULT_INSTANCES) of every family of the given
    difficulties and slugs (default: all) for a split; `knob_pool` (Family.instance)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    count = DEFAULT_INSTANCES[split] if count is None else count
    if count < 1:
        raise ValueError(f"need at least one instance per family, got {count}")
    unknown = set(families or ()) - {f.slug for f in load_families()}
    if unknown:
        raise ValueError(f"unknown families: {', '.join(sorted(unknown))}")
    chosen = [f for f in load_families() if (not difficulties or f.difficulty in difficulties)
              and (not families or f.slug in families)]
    if knob_pool is not None and knob_pool < 1:
        raise ValueError(f"a knob pool needs at least one setting, got {knob_pool}")
    return [family.instance(split, index, knob_pool) for family in chosen
            for index in range(count)]


def render_input(instance: Instance, raw: object) -> str:
    """The judge's input text: stdin as is, call arguments as one JSON value per line."""
    slug = instance.family.slug
    if instance.family.kind == "stdin":
        if not isinstance(raw, str):
            raise TypeError(f"{slug}: stdin inputs are str, got {type(raw).__name__}")
        return raw
    if not isinstance(raw, tuple):
        raise TypeError(f"{slug}: call inputs are tuples of arguments")
    return "\n".join(json.dumps(arg, separators=(",", ":")) for arg in raw)


def run_reference(instance: Instance, source: str, input_text: str) -> str:
    """Run one of our reference programs in-process and return its output text."""
    namespace: dict = {"__name__": "__main__"}
    name = instance.problem_id
    if instance.family.kind == "call":
        exec(CALL_PRELUDE, namespace)
        exec(compile(source, name, "exec"), namespace)
        args = [json.loads(line) for line in input_text.splitlines()]
        result = getattr(namespace["Solution"](), instance.func_name)(*args)
        return json.dumps(result)
    stdin = io.TextIOWrapper(io.BytesIO(input_text.encode()), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    limit = sys.getrecursionlimit()
    saved = sys.stdin
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(stdout):
            exec(compile(source, name, "exec"), namespace)
        stdout.flush()
    finally:
        sys.stdin = saved
        sys.setrecursionlimit(limit)
    return stdout.buffer.getvalue().decode()


@dataclass(frozen=True)
class GeneratedInput:
    text: str
    size: int  # the size the generator was asked for (what the statement's bound bounds)


def sized_input(instance: Instance, seed: str, low: int, high: int,
                exclude: Collection[str] = ()) -> GeneratedInput:
    """A generated input whose length in bytes lies in [low, high) and that is not in
    `exclude`.

    Tries the size parameter that suits the family, else searches n by doubling then
    bisection; generators are random, so lengths are only roughly monotone in n, and
    a few reseeded tries cover the jumps.
    """
    for attempt in range(40):
        made = _bisect_size(instance, f"{seed}:{attempt}", low, high)
        if low <= len(made.text.encode()) < high and made.text not in exclude:
            return made
    raise ValueError(f"{instance.problem_id}: the generator made no new input in "
                     f"[{low}, {high}) bytes")


def _bisect_size(instance: Instance, seed: str, low: int, high: int) -> GeneratedInput:
    def make(n: int) -> GeneratedInput:
        raw = instance.generate(random.Random(f"{seed}:{n}"), n)
        return GeneratedInput(render_input(instance, raw), n)

    made = make(_size_hint(instance.family, low, high))  # usually right for every instance
    if low <= len(made.text.encode()) < high:
        return made
    return make(_search_size(lambda n: make(n).text, instance, low, high))


@cache
def _size_hint(family: Family, low: int, high: int) -> int:
    """The size parameter that gives an input in [low, high) for a fixed probe instance
    of the family: a function of the family alone, so builds stay deterministic."""
    probe = family.instance("train", 0)

    def make(n: int) -> str:
        return render_input(probe, probe.generate(random.Random(f"size-probe:{n}"), n))

    return _search_size(make, probe, low, high)


def _search_size(make, instance: Instance, low: int, high: int) -> int:
    n = 1
    while len(make(n).encode()) < low:
        n *= 2
        if n > 1 << 30:
            raise ValueError(f"{instance.problem_id}: the generator cannot reach {low} bytes")
    lo, hi = n // 2, n
    while len(make(hi).encode()) >= high and hi - lo > 1:
        mid = (lo + hi) // 2
        if len(make(mid).encode()) < low:
            lo = mid
        else:
            hi = mid
    return hi


def generated_inputs(instance: Instance, exclude: Collection[str] = (),
                     draw: int = 0) -> list[GeneratedInput]:
    """Two inputs per decade up to the instance's scale, smallest first, from the
    instance's seed (and the number of the draw, when an earlier draw's tests let the
    buggy variant pass)."""
    inputs: list[GeneratedInput] = []
    for decade in range(1, instance.scale + 1):
        targets = FIRST_DECADE_TARGETS if decade == 1 else DECADE_TARGETS
        for index, (low, high) in enumerate(targets):
            seed = f"{instance.seed}:{decade}:{index}" + (f":draw{draw}" if draw else "")
            inputs.append(sized_input(instance, seed, int(low * 10**decade),
                                      int(high * 10**decade),
                                      {*exclude, *(made.text for made in inputs)}))
    return inputs


def size_bound(size: int) -> int:
    """The constraint a statement states for inputs up to `size`: the next 1, 2 or 5
    times a power of ten, as contest statements round theirs."""
    power = 1
    while True:
        for step in (1, 2, 5):
            if step * power >= size:
                return step * power
        power *= 10


def make_test(instance: Instance, text: str) -> Test:
    expected = run_reference(instance, instance.efficient, text)
    for program in instance.family.slow:
        # a cheap early check: far below its break decade (calibration runs the rest)
        if len(text.encode()) < min(SLOW_CROSS_CHECK_BYTES, 10 ** program.break_decade // 4):
            answer = run_reference(instance, instance.render(program.source), text)
            if not outputs_match(instance.family.kind, answer, expected):
                raise AssertionError(
                    f"{instance.problem_id}: the {program.complexity} slow program and the "
                    f"efficient reference disagree on input {text[:80]!r}: "
                    f"{answer[:80]!r} vs {expected[:80]!r}")
    return Test(text, expected)


def render_statement(instance: Instance, examples: list[Test], bound: int) -> str:
    framing = FRAMINGS[instance.framing]
    title = framing["title"].format(title=instance.family.title)
    parts = [title] if title else []
    parts.append(instance.statement(bound).strip())
    for number, test in enumerate(examples, start=1):
        if instance.family.kind == "call":
            parts.append(f"Example {number}\nArguments (one JSON value per line):\n{test.input}\n"
                         f"Returns: {test.output}")
        else:
            parts.append(f"Example {number}\n{framing['input']}\n{test.input.rstrip()}\n"
                         f"{framing['output']}\n{test.output.rstrip()}")
    return "\n\n".join(parts)


def to_problem(instance: Instance, exclude_inputs: Collection[str] = ()) -> Problem:
    """The instance in the judge's schema; generated tests avoid `exclude_inputs`."""
    if not exclude_inputs:
        return _cached_problem(instance)
    return _make_problem(instance, exclude_inputs)


@cache
def _cached_problem(instance: Instance) -> Problem:
    return _make_problem(instance, ())


def buggy_verdicts(instance: Instance, tests: Iterable[Test]) -> tuple[str, ...]:
    """The buggy variant's verdicts on `tests`, in their order, up to its first failure
    (WA, or RE for any error); run in-process, as the references are."""
    verdicts: list[str] = []
    for test in tests:
        try:
            answer = run_reference(instance, instance.buggy, test.input)
        except Exception:  # any error of the buggy program fails the test
            return (*verdicts, "RE")
        if not outputs_match(instance.family.kind, answer, test.output):
            return (*verdicts, "WA")
        verdicts.append("AC")
    return tuple(verdicts)


def reveals_the_bug(instance: Instance, tests: Iterable[Test]) -> bool:
    """Whether the instance's buggy variant fails one of `tests` (it has none: True)."""
    if instance.buggy is None:
        return True
    verdicts = buggy_verdicts(instance, sorted(tests, key=lambda t: len(t.input)))
    return bool(verdicts) and verdicts[-1] != "AC"  # it stopped at a failure


def _make_problem(instance: Instance, exclude_inputs: Collection[str]) -> Problem:
    family = instance.family
    all_edge = [] if instance.split != "train" else [
        make_test(instance, render_input(instance, raw)) for raw in instance.edge_cases()]
    for draw in range(BUG_REVEALING_DRAWS):
        made = generated_inputs(instance, exclude_inputs, draw)
        generated = [make_test(instance, m.text) for m in made]
        # edge cases within the instance's scale: none longer than its largest test
        longest = max(t.input_len for t in generated)
        edge = [t for t in all_edge if t.input_len <= longest]
        if reveals_the_bug(instance, [*edge, *generated]):
            break
    else:
        raise ValueError(f"{instance.problem_id}: the buggy variant passed every test of "
                         f"{BUG_REVEALING_DRAWS} draws; the family's generator must make "
                         f"inputs that reveal it")
    return Problem(
        problem_id=instance.problem_id, title=family.title,
        statement=render_statement(instance, generated[:EXAMPLES_SHOWN],
                                   size_bound(max(m.size for m in made))),
        difficulty=family.difficulty, source="bundled", kind=family.kind,
        func_name=instance.func_name, starter_code=instance.starter_code,
        time_limit_s=family.time_limit_s, memory_limit_mb=family.memory_limit_mb,
        tests=(*edge, *generated))


def build_bundled(split: str, count: int | None = None, exclude_inputs: Collection[str] = (),
                  difficulties: Collection[str] | None = None,
                  families: Collection[str] | None = None,
                  knob_pool: int | None = None) -> list[Problem]:
    """`count` instances of every family (of the given difficulties and slugs) for a split."""
    exclude = frozenset(exclude_inputs)
    return [to_problem(instance, exclude)
            for instance in instances(split, count, difficulties, families, knob_pool)]
