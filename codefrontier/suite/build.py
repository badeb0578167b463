"""Turning the bundled suite into problems in the judge's schema, deterministically.

Tests: the hand-written edge cases, then two generated tests in every
input-length decade from 10^1 to 10^5 bytes. Expected outputs come from the
efficient reference; the slow reference must agree on every test small enough
for it, and the buggy variant must fail at least one test. References are our
own trusted code, so they run in-process here; the judge runs them sandboxed
in the calibration tests.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import pkgutil
import random
import sys
from functools import cache

from codefrontier.judge.child import CALL_PRELUDE
from codefrontier.judge.compare import outputs_match
from codefrontier.problems import Problem, Test
from codefrontier.suite.spec import SuiteProblem

DECADES = (1, 2, 3, 4, 5)
# Two tests per decade d, aimed at [1.1, 2) * 10^d and [2.5, 4) * 10^d bytes.
DECADE_TARGETS = ((1.1, 2.0), (2.5, 4.0))
SLOW_CROSS_CHECK_BYTES = 2_000
EVAL_SHARE = 3  # every third problem of each difficulty is held out


@cache
def load_suite() -> tuple[SuiteProblem, ...]:
    """Every bundled problem, in slug order."""
    import codefrontier.suite.problems as package

    found = []
    for module in pkgutil.iter_modules(package.__path__):
        problem = importlib.import_module(f"{package.__name__}.{module.name}").PROBLEM
        if problem.slug != module.name.replace("_", "-"):
            raise ValueError(f"suite module {module.name} defines slug {problem.slug!r}")
        found.append(problem)
    return tuple(sorted(found, key=lambda p: p.slug))


def render_input(problem: SuiteProblem, raw: object) -> str:
    """The judge's input text: stdin as is, call arguments as one JSON value per line."""
    if problem.kind == "stdin":
        if not isinstance(raw, str):
            raise TypeError(f"{problem.slug}: stdin inputs are str, got {type(raw).__name__}")
        return raw
    if not isinstance(raw, tuple):
        raise TypeError(f"{problem.slug}: call inputs are tuples of arguments")
    return "\n".join(json.dumps(arg, separators=(",", ":")) for arg in raw)


def run_reference(problem: SuiteProblem, source: str, input_text: str) -> str:
    """Run one of our reference programs in-process and return its output text."""
    namespace: dict = {"__name__": "__main__"}
    if problem.kind == "call":
        exec(CALL_PRELUDE, namespace)
        exec(compile(source, problem.slug, "exec"), namespace)
        args = [json.loads(line) for line in input_text.splitlines()]
        result = getattr(namespace["Solution"](), problem.func_name)(*args)
        return json.dumps(result)
    stdin = io.TextIOWrapper(io.BytesIO(input_text.encode()), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    limit = sys.getrecursionlimit()
    saved = sys.stdin
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(stdout):
            exec(compile(source, problem.slug, "exec"), namespace)
        stdout.flush()
    finally:
        sys.stdin = saved
        sys.setrecursionlimit(limit)
    return stdout.buffer.getvalue().decode()


def sized_input(problem: SuiteProblem, seed: str, low: int, high: int) -> str:
    """A generated input whose length in bytes lies in [low, high).

    Searches the size parameter n by doubling then bisection; generators are
    random, so lengths are only roughly monotone in n, and a few reseeded tries
    cover the jumps.
    """
    for attempt in range(20):
        text = _bisect_size(problem, f"{seed}:{attempt}", low, high)
        if low <= len(text.encode()) < high:
            return text
    raise ValueError(f"{problem.slug}: the generator made no input in [{low}, {high}) bytes")


def _bisect_size(problem: SuiteProblem, seed: str, low: int, high: int) -> str:
    def make(n: int) -> str:
        return render_input(problem, problem.generate(random.Random(f"{seed}:{n}"), n))

    n = 1
    while len(make(n).encode()) < low:
        n *= 2
        if n > 1 << 30:
            raise ValueError(f"{problem.slug}: the generator cannot reach {low} bytes")
    lo, hi = n // 2, n
    while len(make(hi).encode()) >= high and hi - lo > 1:
        mid = (lo + hi) // 2
        if len(make(mid).encode()) < low:
            lo = mid
        else:
            hi = mid
    return make(hi)


def suite_inputs(problem: SuiteProblem) -> list[str]:
    inputs = [render_input(problem, raw) for raw in problem.edge_cases]
    for decade in DECADES:
        for index, (low, high) in enumerate(DECADE_TARGETS):
            seed = f"{problem.slug}:{decade}:{index}"
            inputs.append(sized_input(problem, seed, int(low * 10**decade), int(high * 10**decade)))
    return inputs


def make_tests(problem: SuiteProblem) -> tuple[Test, ...]:
    tests = []
    for text in suite_inputs(problem):
        expected = run_reference(problem, problem.efficient, text)
        if problem.slow is not None and len(text.encode()) <= SLOW_CROSS_CHECK_BYTES:
            slow = run_reference(problem, problem.slow, text)
            if not outputs_match(problem.kind, slow, expected):
                raise AssertionError(f"{problem.slug}: slow and efficient references disagree "
                                     f"on input {text[:80]!r}: {slow[:80]!r} vs {expected[:80]!r}")
        tests.append(Test(text, expected))
    return tuple(tests)


def render_statement(problem: SuiteProblem, tests: tuple[Test, ...], examples: int = 2) -> str:
    parts = [problem.statement.strip()]
    for number, test in enumerate(tests[:examples], start=1):
        if problem.kind == "call":
            parts.append(f"Example {number}\nArguments (one JSON value per line):\n{test.input}\n"
                         f"Returns: {test.output}")
        else:
            parts.append(f"Example {number}\nInput:\n{test.input.rstrip()}\nOutput:\n"
                         f"{test.output.rstrip()}")
    return "\n\n".join(parts)


_built: dict[int, tuple[SuiteProblem, Problem]] = {}


def to_problem(problem: SuiteProblem) -> Problem:
    """The problem in the judge's schema; built once per process (specs hold lists,
    so they cannot key a functools cache; the entry keeps the spec alive, so its id
    stays its own)."""
    entry = _built.get(id(problem))
    if entry is None or entry[0] is not problem:
        entry = _built[id(problem)] = (problem, _make_problem(problem))
    return entry[1]


def _make_problem(problem: SuiteProblem) -> Problem:
    tests = make_tests(problem)
    return Problem(
        problem_id=problem.problem_id, title=problem.title,
        statement=render_statement(problem, tests), difficulty=problem.difficulty,
        source="bundled", kind=problem.kind, func_name=problem.func_name,
        starter_code=problem.starter_code, time_limit_s=problem.time_limit_s,
        memory_limit_mb=problem.memory_limit_mb, tests=tests)


def split_of(problem: SuiteProblem, suite: tuple[SuiteProblem, ...]) -> str:
    """"train" or "eval": within each difficulty, problems ranked by a hash of their slug,
    every third held out. Stratified, and stable when problems are added."""
    same = sorted((p for p in suite if p.difficulty == problem.difficulty),
                  key=lambda p: hashlib.sha256(p.slug.encode()).hexdigest())
    return "eval" if same.index(problem) % EVAL_SHARE == EVAL_SHARE - 1 else "train"


def build_bundled(split: str | None = None) -> list[Problem]:
    """Problems of one split ("train", "eval") or of the whole suite (None)."""
    if split not in (None, "train", "eval"):
        raise ValueError(f"split must be train or eval, got {split!r}")
    suite = load_suite()
    return [to_problem(p) for p in suite if split is None or split_of(p, suite) == split]
