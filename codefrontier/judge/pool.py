"""A pool of judge workers and the in-memory judging API.

    with JudgePool(workers=2) as judge:
        results = judge.judge(problems, samples)

Workers are fresh interpreters started with fork+exec (never a fork of the
caller, which may be a multi-GB trainer holding a CUDA context), one per core
by default. A worker that dies or hangs is replaced and its sample judged again by
a fresh one: a lost worker is never a verdict.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from codefrontier.base.threads import job_cores
from codefrontier.judge import wire
from codefrontier.judge.cache import ByteBudgetCache
from codefrontier.judge.extract import extract_code
from codefrontier.judge.timing import budget_per_test_s
from codefrontier.judge.verdicts import Outcome, Verdict, classify, first_failure
from codefrontier.problems.schema import Problem
from codefrontier.sandbox.isolation import LEVELS, Isolation, SandboxError
from codefrontier.sandbox.textcut import excerpt_bytes

log = logging.getLogger("codefrontier.judge")

DEFAULT_OUTPUT_LIMIT_MB = 16.0
COMPILE_ALLOWANCE_S = 30.0
START_TIMEOUT_S = 60.0
LOST_WORKER_ATTEMPTS = 4  # a request goes to this many workers before the judge gives up
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class Sample:
    """One model output to judge. `code`, when given, skips extraction from `completion`."""

    problem_id: str
    sample_id: int
    completion: str = ""
    code: str | None = None
    finish_reason: str | None = None  # "length": the token budget ran out
    # a format error a multi-turn episode found itself (malformed_tool_call,
    # turn_budget_exhausted, no_submission): nothing is run
    episode_error: str | None = None


@dataclass
class SampleResult:
    """The judge's record of one sample (one row of verdicts.parquet; see docs/judge.md)."""

    problem_id: str
    sample_id: int
    outcome: str
    verdicts: list[str]
    input_lens: list[int]  # every test of the problem, in the order run (ascending)
    cpu_s: list[float]  # per test run
    peak_mb: list[float]  # per test run
    # per test: runs it took to time (1, or up to timing.TIMING_RUNS near the limit)
    timing_runs: list[int]
    first_failure: int | None
    max_passed_input_len: int | None
    format_error_cause: str | None
    # the first failure is TLE: "cpu" (CPU time over the limit) or "wall" (the wall-clock
    # backstop: the program sat idle, asleep or blocked, for too long)
    tle_cause: str | None
    error: str  # compile error, or the stderr tail of the failing test on RE
    isolation: str


@dataclass(frozen=True)
class Execution:
    """One run of a program on one input (`JudgePool.execute`; see docs/judge.md)."""

    exit_code: int  # negative: killed by that signal
    stdout: str  # UTF-8 (errors replaced), control characters stripped, cut to head and tail
    stderr: str  # the same
    cpu_s: float
    wall_s: float
    # "ok", "error" (non-zero exit), "timeout" (CPU or wall limit), "memory",
    # "output_limit" or "compile_error" (the message in stderr)
    status: str
    truncated: bool  # stdout or stderr was cut


def workers_per_process(node_workers: int | None = None) -> int:
    """Judge workers for this process: the node's share (`node_workers`, default the job's
    cores: base.threads.job_cores) divided among the training processes on the node
    (LOCAL_WORLD_SIZE, set by accelerate and torchrun), at least one. Eight training
    processes on an 8-core node so run 8 sandboxes, not 64."""
    cores = node_workers or job_cores()
    local_processes = int(os.environ.get("LOCAL_WORLD_SIZE") or 1)
    return max(1, cores // max(1, local_processes))


class WorkerDied(RuntimeError):
    """A worker died or stayed silent past its time: an event of the machine, not a verdict.
    `cause` is "died" (its pipe closed) or "silent" (no answer in time: a loaded machine)."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


class JudgeUnavailable(RuntimeError):
    """Workers were lost again and again on one request: the judge cannot answer it."""


class _Worker:
    """One worker process and the pipes to it."""

    def __init__(self, max_isolation: str, processes_per_test: int, cache_mb: float) -> None:
        self._command = [sys.executable, "-m", "codefrontier.judge.worker",
                         "--max-isolation", max_isolation,
                         "--processes-per-test", str(processes_per_test),
                         "--cache-mb", str(cache_mb)]
        self.process: subprocess.Popen | None = None
        self.isolation: Isolation | None = None
        self.start()

    def start(self) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPATH": _PACKAGE_PARENT}
        self.process = subprocess.Popen(self._command, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env, close_fds=True,
                                        start_new_session=True)
        try:
            ready = self._receive(START_TIMEOUT_S)
        except WorkerDied:
            self.stop(kill=True)
            raise
        if ready.get("op") == "failed":
            self.stop(kill=True)
            raise SandboxError(f"the judge's sandbox could not be built: {ready['error']}")
        if ready.get("op") != "ready":
            raise WorkerDied(f"judge worker sent {ready!r} instead of ready", "died")
        self.isolation = Isolation(**ready["isolation"])

    def _receive(self, timeout: float) -> dict:
        fd = self.process.stdout.fileno()
        readable, _, _ = select.select([fd], [], [], timeout)
        if not readable:
            raise WorkerDied(f"judge worker silent for {timeout:.0f} s", "silent")
        try:
            header, _ = wire.receive(fd)
        except (wire.ChannelClosed, ValueError) as error:
            raise WorkerDied(f"judge worker died ({error})", "died") from None
        return header

    def request(self, request: dict, timeout: float) -> dict:
        """The worker's answer to `request`; WorkerDied when it dies or stays silent for
        `timeout` seconds, after which it is stopped (the next request starts a fresh one)."""
        if self.process is None:
            self.start()
        try:
            wire.send(self.process.stdin.fileno(), request)
            return self._receive(timeout)
        except (WorkerDied, OSError) as error:
            self.stop(kill=True)
            raise WorkerDied(str(error), getattr(error, "cause", "died")) from None

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if not kill:
            try:
                wire.send(self.process.stdin.fileno(), {"op": "exit"})
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                kill = True
        if kill:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        self.process = None


class JudgePool:
    """Judges samples against problems in sandboxed worker processes.

    workers: number of worker processes (default: `workers_per_process()`, one per core
        this process may use, shared with the other training processes on the node).
    max_isolation: the strongest sandbox level to try ("namespaces", "userns",
        "rlimits"); each worker falls back to the strongest level that works.
    output_limit_mb: stdout cap per test; more is OLE.
    cache_mb: per worker, the tests (and, in the sandbox, the inputs) of recently
        judged problems are kept up to this size, so a sample sends only its program.
    reply_cache_mb: the replies of recently judged programs, kept up to this size: a
        program judged again on the same tests under the same limits (a sample's copy in
        this batch, or in an earlier one) reuses its verdicts instead of running again.
    patience: multiplies the time a worker may take to answer (from the limits and the
        number of tests) before it is taken for lost.

    A worker that dies or stays silent past that time is an event of the machine, never
    a verdict: it is replaced, the loss is logged and counted (`worker_losses`, and by
    cause, "died" or "silent", in `losses_by_cause`), and the
    request goes to a fresh worker with twice the time, up to LOST_WORKER_ATTEMPTS
    times; then JudgeUnavailable is raised.
    """

    def __init__(self, workers: int | None = None, max_isolation: str = "namespaces",
                 output_limit_mb: float = DEFAULT_OUTPUT_LIMIT_MB,
                 processes_per_test: int = 32, cache_mb: float = 256.0,
                 reply_cache_mb: float = 64.0, patience: float = 1.0) -> None:
        if max_isolation not in LEVELS:
            raise ValueError(f"max_isolation {max_isolation!r} is not one of {LEVELS}")
        count = workers or workers_per_process()
        if count < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if patience <= 0:
            raise ValueError(f"patience must be positive, got {patience}")
        self.output_limit_mb = output_limit_mb
        self.patience = patience
        self.worker_losses = 0  # workers lost (died or silent) while answering
        self.losses_by_cause: Counter[str] = Counter()  # "died", "silent"
        self._workers = [_Worker(max_isolation, processes_per_test, cache_mb)
                         for _ in range(count)]
        self._idle: queue.Queue[_Worker] = queue.Queue()
        for worker in self._workers:
            self._idle.put(worker)
        self._tests_cache: dict[Problem, tuple[list[list[str]], list[int], str]] = {}
        self._replies = ByteBudgetCache(int(reply_cache_mb * 2**20))
        self._lock = threading.Lock()
        self.isolation = self._workers[0].isolation
        log.info("judge sandbox: %s (%d workers)", self.isolation.describe(), count)

    @property
    def worker_count(self) -> int:
        return len(self._workers)

    @property
    def worker_pids(self) -> list[int]:
        """Host pids of the worker processes (a restarted worker gets a new one)."""
        return [w.process.pid for w in self._workers if w.process is not None]

    def __enter__(self) -> JudgePool:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            worker.stop()
        self._workers = []

    def _ordered_tests(self, problem: Problem) -> tuple[list[list[str]], list[int], str]:
        """Tests in run order, their input lengths and a content key, computed once per
        problem (keyed by value, so a changed problem under the same id is not mistaken)."""
        with self._lock:
            cached = self._tests_cache.get(problem)
            if cached is None:
                ordered = problem.tests_by_input_length()
                tests = [[t.input, t.output] for t in ordered]
                digest = hashlib.sha256(json.dumps(tests).encode()).hexdigest()[:32]
                cached = (tests, [t.input_len for t in ordered], digest)
                self._tests_cache[problem] = cached
            return cached

    def judge_one(self, problem: Problem, sample: Sample, all_tests: bool = False) -> SampleResult:
        request = self._request(problem, sample, all_tests)
        if isinstance(request, SampleResult):
            return request
        return self._result(problem, sample,
                            self._judged(problem, request, _request_key(request)))

    def _request(self, problem: Problem, sample: Sample, all_tests: bool) -> dict | SampleResult:
        """What a worker gets to judge `sample`, or its result when there is nothing to run
        (a format error)."""
        _, input_lens, tests_key = self._ordered_tests(problem)
        if sample.episode_error:
            return _format_error(sample, input_lens, self.isolation.level, sample.episode_error)
        code = sample.code if sample.code is not None else extract_code(sample.completion)
        if code is None:
            cause = "truncated" if sample.finish_reason == "length" else "no_code_block"
            return _format_error(sample, input_lens, self.isolation.level, cause)
        return {"op": "judge", "code": code, "kind": problem.kind,
                "func_name": problem.func_name, "time_limit_s": problem.time_limit_s,
                "memory_limit_mb": problem.memory_limit_mb,
                "output_limit_mb": self.output_limit_mb, "all_tests": all_tests,
                "tests_key": tests_key}

    def _judged(self, problem: Problem, request: dict, key: str,
                fresh: bool = False) -> tuple[dict, str]:
        """A worker's reply to `request` (whose `_request_key` is `key`) and the isolation
        it ran under. A program already judged on the same tests under the same limits is
        not run again: its reply is taken from the cache (so copies of a randomized
        program share one draw), unless `fresh`."""
        with self._lock:
            cached = None if fresh else self._replies.get(key)
        if cached is not None:
            return cached
        tests, _, _ = self._ordered_tests(problem)
        timeout = COMPILE_ALLOWANCE_S + len(tests) * (budget_per_test_s(problem.time_limit_s)
                                                      + 3.0)

        def ask(worker: _Worker, time_s: float) -> dict:
            reply = worker.request(request, time_s)
            if reply.get("op") == "need_tests":  # first time, or evicted from its cache
                reply = worker.request({**request, "tests": tests}, time_s)
            return reply

        reply, isolation = self._answer(ask, timeout, problem.problem_id)
        judged = (reply, isolation)
        if not fresh:
            with self._lock:
                self._replies.put(key, judged, len(json.dumps(reply)) + len(request["code"]))
        return judged

    def _answer(self, ask, timeout_s: float, what: str) -> tuple[dict, str]:
        """`ask(worker, seconds)` on an idle worker, and the isolation it ran under; a lost
        worker is replaced and the question asked again of the fresh one, with twice the
        time (a loaded machine), up to LOST_WORKER_ATTEMPTS times."""
        time_s = timeout_s * self.patience
        for attempt in range(1, LOST_WORKER_ATTEMPTS + 1):
            worker = self._idle.get()
            try:
                return ask(worker, time_s), worker.isolation.level
            except WorkerDied as error:
                with self._lock:
                    self.worker_losses += 1
                    self.losses_by_cause[error.cause] += 1
                log.warning("%s: judge worker lost (%s), attempt %d of %d; asking a fresh "
                            "worker", what, error, attempt, LOST_WORKER_ATTEMPTS)
                last_error = error
                time_s *= 2
            finally:
                self._idle.put(worker)
        raise JudgeUnavailable(f"{what}: judge workers lost {LOST_WORKER_ATTEMPTS} times "
                               f"in a row (last: {last_error}); no verdict is given")

    def _result(self, problem: Problem, sample: Sample, judged: tuple[dict, str]) -> SampleResult:
        _, input_lens, _ = self._ordered_tests(problem)
        reply, isolation = judged
        return _result_from_reply(sample, reply, input_lens, isolation)

    def execute(self, code: str, stdin: str = "", *, time_limit_s: float,
                memory_limit_mb: int, output_chars: int, kind: str = "stdin",
                func_name: str = "") -> Execution:
        """Run `code` once on `stdin` in the sandbox a judged sample gets (same limits,
        same cleanup of every process it starts) and return what it printed. The limits
        are the caller's (the tool-use setting's episode limits, a problem's own): they
        have no default here.

        time_limit_s: CPU seconds, a run over it a "timeout" (it is ended at
        `timing.kill_after_s`; the idle backstop is 2 × limit + 1 s of wall time);
        memory_limit_mb: address space on top of the interpreter; stdout is capped at the
        pool's output_limit_mb ("output_limit"); stdout and stderr come back cut to their
        first and last `output_chars` // 2 characters. kind "call" runs
        `Solution().<func_name>` on the JSON arguments in `stdin` (one per line), as judging
        does, and ends stdout with the return value's JSON. Thread-safe, like judge_one.
        """
        if kind not in ("stdin", "call"):
            raise ValueError(f"kind must be 'stdin' or 'call', got {kind!r}")
        request = {"op": "execute", "code": code, "stdin": stdin, "kind": kind,
                   "func_name": func_name,
                   "time_limit_s": time_limit_s, "memory_limit_mb": memory_limit_mb,
                   "output_limit_mb": self.output_limit_mb, "output_chars": output_chars,
                   "excerpt_bytes": excerpt_bytes(output_chars)}
        reply, _ = self._answer(lambda worker, time_s: worker.request(request, time_s),
                                COMPILE_ALLOWANCE_S + budget_per_test_s(time_limit_s) + 3.0,
                                "execute")
        return Execution(**{name: reply[name] for name in Execution.__dataclass_fields__})

    def judge(self, problems: Mapping[str, Problem], samples: Iterable[Sample],
              all_tests: bool = False, progress: bool = False,
              fresh: bool = False, on_result=None) -> list[SampleResult]:
        """Judge samples in parallel; results come back in the order of `samples`, and
        `on_result(result)` is called with each as soon as it and those before it are in
        (a job that keeps its verdicts as it goes). `fresh` runs every sample's program,
        none taken from the cache or from a copy judged beside it: a measurement repeated
        (CPU times differ run to run)."""
        samples = list(samples)
        unknown = sorted({s.problem_id for s in samples if s.problem_id not in problems})
        if unknown:
            shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
            raise KeyError(f"{len(unknown)} samples name problems not in the problem set: {shown}")
        requests = [self._request(problems[s.problem_id], s, all_tests) for s in samples]
        keys = [_request_key(r) + (f"#{index}" if fresh else "") if isinstance(r, dict)
                else None for index, r in enumerate(requests)]
        # copies of one program are judged once, by the first sample that holds it
        first_of: dict[str, int] = {}
        for index, key in enumerate(keys):
            if key is not None:
                first_of.setdefault(key, index)
        with ThreadPoolExecutor(max_workers=len(self._workers)) as executor:
            replies = {key: executor.submit(self._judged, problems[samples[index].problem_id],
                                            requests[index], key, fresh)
                       for key, index in first_of.items()}
            bar = tqdm(total=len(samples), desc="judging", unit="sample", disable=not progress)
            results = []
            for sample, request, key in zip(samples, requests, keys, strict=True):
                if key is not None:
                    request = self._result(problems[sample.problem_id], sample,
                                           replies[key].result())
                results.append(request)
                if on_result is not None:
                    on_result(request)
                bar.update()
            bar.close()
        return results


def _request_key(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


def _format_error(sample: Sample, input_lens: list[int], isolation: str,
                  cause: str) -> SampleResult:
    return SampleResult(
        problem_id=sample.problem_id, sample_id=sample.sample_id,
        outcome=Outcome.FORMAT_ERROR.value, verdicts=[], input_lens=input_lens, cpu_s=[],
        peak_mb=[], timing_runs=[], first_failure=None, max_passed_input_len=None,
        format_error_cause=cause, tle_cause=None, error="", isolation=isolation)


def _result_from_reply(sample: Sample, reply: dict, input_lens: list[int],
                       isolation: str) -> SampleResult:
    runs = reply["runs"]
    error = reply["compile_error"]
    if error:
        runs = [{"verdict": Verdict.RE.value, "cpu_s": 0.0, "peak_mb": 0.0, "stderr": error,
                 "timing_runs": 1}]
    verdicts = [r["verdict"] for r in runs]
    failed_at = first_failure(verdicts)
    passed = verdicts if failed_at is None else verdicts[:failed_at]
    if failed_at is not None and not error:
        error = runs[failed_at].get("stderr", "")
    return SampleResult(
        problem_id=sample.problem_id, sample_id=sample.sample_id,
        outcome=classify(verdicts).value, verdicts=verdicts, input_lens=input_lens,
        cpu_s=[round(r["cpu_s"], 4) for r in runs], peak_mb=[round(r["peak_mb"], 2) for r in runs],
        timing_runs=[r["timing_runs"] for r in runs],
        first_failure=failed_at,
        max_passed_input_len=input_lens[len(passed) - 1] if passed else None,
        format_error_cause=None, tle_cause=_tle_cause(runs, failed_at), error=error,
        isolation=isolation)


def _tle_cause(runs: list[dict], failed_at: int | None) -> str | None:
    if failed_at is None or runs[failed_at]["verdict"] != Verdict.TLE.value:
        return None
    return "wall" if runs[failed_at].get("wall_timeout") else "cpu"
