"""Judge throughput: this judge against two common ways of running untrusted code.

(a) codefrontier's judge: sandboxed fork-server workers (JudgePool).
(b) subprocess per test: `subprocess.run([python, program.py])` for every test,
    with the interpreter called by absolute path; and the same with
    `python -I -S` (no site import: the cheapest interpreter start).
(c) LiveCodeBench style: one process per sample (multiprocessing, fork), each
    test `exec`-ed in that process with stdin/stdout swapped for StringIO.

All three run the same samples with the same parallelism (--workers) and stop
at the first failing test. Prints throughput (tests/s) and the wall time each
test costs a worker (wall x workers / tests), which for these trivial programs
is almost all overhead.

    python benchmarks/judge.py [--samples 200] [--tests 10] [--workers 2]
    python benchmarks/judge.py --suite-problem distinct-values   # large tests

With --suite-problem, judges samples of a bundled problem (up to ~400 kB of
input per test) with a program that fails the first test and with the
efficient reference, and prints the cost per sample.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codefrontier.judge import JudgePool, Sample
from codefrontier.judge.compare import tokens_match
from codefrontier.problems.schema import Problem, Test

PROGRAMS = [
    "a, b = map(int, input().split())\nprint(a + b)\n",
    "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n",
]


def make_workload(n_samples: int, n_tests: int) -> tuple[Problem, list[Sample]]:
    tests = tuple(Test(f"{i} {i * 7}\n", str(i * 8)) for i in range(n_tests))
    problem = Problem("bench/sum", "Sum", "Print a + b.", "easy", "bench", "stdin", tests=tests,
                      time_limit_s=2.0)
    samples = [Sample(problem.problem_id, i, code=PROGRAMS[i % len(PROGRAMS)])
               for i in range(n_samples)]
    return problem, samples


def run_codefrontier(problem: Problem, samples: list[Sample], workers: int) -> tuple[int, str]:
    with JudgePool(workers=workers) as pool:
        pool.judge({problem.problem_id: problem}, samples[:workers])  # warm up
        start = time.perf_counter()
        results = pool.judge({problem.problem_id: problem}, samples)
        elapsed = time.perf_counter() - start
        level = pool.isolation.level
    tests = sum(len(r.verdicts) for r in results)
    assert all(r.outcome == "correct" for r in results)
    return tests, elapsed, level


def _subprocess_sample(problem: Problem, code_path: str, flags: tuple[str, ...]) -> int:
    ran = 0
    for test in problem.tests_by_input_length():
        done = subprocess.run([sys.executable, *flags, code_path], input=test.input.encode(),
                              capture_output=True, timeout=problem.time_limit_s * 2 + 1)
        ran += 1
        if done.returncode != 0 or not tokens_match(done.stdout.decode(), test.output):
            break
    return ran


def run_subprocess(problem: Problem, samples: list[Sample], workers: int,
                   flags: tuple[str, ...] = ()):
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for sample in samples:
            path = Path(folder) / f"s{sample.sample_id}.py"
            path.write_text(sample.code)
            paths.append(str(path))
        start = time.perf_counter()
        with ThreadPoolExecutor(workers) as executor:
            tests = sum(executor.map(lambda p: _subprocess_sample(problem, p, flags), paths))
        return tests, time.perf_counter() - start, "none"


def _lcb_sample(args: tuple[str, list[tuple[str, str]]]) -> int:
    code, tests = args
    compiled = compile(code, "main.py", "exec")
    ran = 0
    for stdin_text, expected in tests:
        out = io.StringIO()
        saved_stdin = sys.stdin
        sys.stdin = io.StringIO(stdin_text)
        try:
            with contextlib.redirect_stdout(out):
                exec(compiled, {"__name__": "__main__"})
        except BaseException:
            return ran + 1
        finally:
            sys.stdin = saved_stdin
        ran += 1
        if not tokens_match(out.getvalue(), expected):
            break
    return ran


def _lcb_one_process(args) -> int:
    # One fresh process per sample, as LiveCodeBench does (multiprocessing.Process per sample).
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        return pool.apply(_lcb_sample, (args,))


def run_livecodebench_style(problem: Problem, samples: list[Sample], workers: int):
    tests = [(t.input, t.output) for t in problem.tests_by_input_length()]
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as executor:
        ran = sum(executor.map(_lcb_one_process, [(s.code, tests) for s in samples]))
    return ran, time.perf_counter() - start, "none"


def _program_own_time_ms(problem: Problem, samples: list[Sample], rounds: int = 20) -> float:
    tests = [(t.input, t.output) for t in problem.tests_by_input_length()]
    start = time.perf_counter()
    ran = sum(_lcb_sample((sample.code, tests)) for sample in samples[:10] for _ in range(rounds))
    return 1000 * (time.perf_counter() - start) / ran


def bench_suite_problem(slug: str, samples: int, workers: int) -> None:
    from codefrontier.suite.build import load_families, to_problem

    spec = {f.slug: f for f in load_families()}[slug].instance("train", 0)
    problem = to_problem(spec)
    print(f"{problem.problem_id}: {len(problem.tests)} tests, "
          f"{sum(t.input_len for t in problem.tests)} bytes of input, {workers} workers")
    with JudgePool(workers=workers) as pool:
        for label, code in [("fails the first test", "print(0)"),
                            ("efficient reference, every test", spec.efficient)]:
            batch = [Sample(problem.problem_id, i, code=code) for i in range(samples)]
            start = time.perf_counter()
            results = pool.judge({problem.problem_id: problem}, batch)
            elapsed = time.perf_counter() - start
            print(f"  {label:<34} {1000 * elapsed / samples:6.1f} ms per sample "
                  f"({results[0].outcome})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the fast runners; the median is reported (this VM is noisy)")
    parser.add_argument("--suite-problem", help="benchmark samples of this bundled problem instead")
    args = parser.parse_args()
    if args.suite_problem:
        bench_suite_problem(args.suite_problem, args.samples // 5, args.workers)
        return
    problem, samples = make_workload(args.samples, args.tests)
    print(f"{args.samples} samples x {args.tests} tests, {args.workers} workers, "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{'runner':<34} {'isolation':<11} {'tests':>6} {'seconds':>8} {'tests/s':>8} "
          f"{'ms/test/worker':>15}")
    rows = {}
    for name, runner, repeat in [
        ("codefrontier judge (fork server)", run_codefrontier, args.repeat),
        ("subprocess per test", run_subprocess, 1),
        ("subprocess per test, python -I -S", lambda *a: run_subprocess(*a, flags=("-I", "-S")), 1),
        ("LiveCodeBench style (exec)", run_livecodebench_style, args.repeat),
    ]:
        runs = sorted((runner(problem, samples, args.workers) for _ in range(repeat)),
                      key=lambda run: run[1])
        tests, elapsed, isolation = runs[len(runs) // 2]
        rate = tests / elapsed
        rows[name] = rate
        print(f"{name:<34} {isolation:<11} {tests:>6} {elapsed:>8.2f} {rate:>8.0f} "
              f"{1000 * elapsed * args.workers / tests:>15.2f}")
    own_ms = _program_own_time_ms(problem, samples)
    ours = rows["codefrontier judge (fork server)"]
    print(f"the programs' own time per test (exec in-process, no isolation): {own_ms:.3f} ms; "
          f"codefrontier overhead per test: {1000 * args.workers / ours - own_ms:.2f} ms")
    for name, rate in rows.items():
        if rate != ours:
            print(f"codefrontier judge throughput / {name}: {ours / rate:.2f}x")


if __name__ == "__main__":
    main()
