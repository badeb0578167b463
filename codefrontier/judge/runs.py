"""The worker's side of judging one sample: drive the sandbox, turn runs into verdicts.

This code holds the expected outputs; it runs only in the worker process,
which untrusted programs never share memory with.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field

from codefrontier.judge import wire
from codefrontier.judge.child import (
    EXIT_ASSERTION,
    EXIT_MEMORY,
    EXIT_SETUP,
    EXIT_UNSERIALIZABLE,
)
from codefrontier.judge.compare import outputs_match
from codefrontier.judge.timing import TIMING_RUNS, near_the_limit
from codefrontier.judge.verdicts import Verdict
from codefrontier.sandbox.textcut import cut_stream, head_tail


@dataclass
class TestRun:
    """What the sandbox measured for one test; the payload is the program's output."""

    __test__ = False  # not a pytest test class

    exit_code: int  # negative: killed by that signal
    cpu_s: float
    wall_s: float
    peak_mb: float
    wall_timeout: bool
    output: bytes = field(repr=False)
    output_size: int  # bytes written to stdout, even past the cap
    stderr: str = ""

    def to_wire(self) -> tuple[dict, bytes]:
        header = {name: getattr(self, name) for name in _HEADER_FIELDS}
        return header, self.output

    @classmethod
    def from_wire(cls, header: dict, payload: bytes) -> TestRun:
        return cls(output=payload, **{name: header[name] for name in _HEADER_FIELDS})


_HEADER_FIELDS = tuple(name for name in TestRun.__dataclass_fields__ if name != "output")


@dataclass(frozen=True)
class StreamEnds:
    """The first and last bytes of a stream of `size` bytes (`tail` empty when `head` is all)."""

    head: bytes
    tail: bytes
    size: int

    @property
    def whole(self) -> bool:
        return len(self.head) + len(self.tail) == self.size

    def cut(self, limit: int) -> tuple[str, bool]:
        return cut_stream(self.head, self.tail, self.size, limit)

    def then(self, other: StreamEnds, keep: int) -> StreamEnds:
        """This stream followed by `other`, keeping at most `keep` bytes at each end."""
        size = self.size + other.size
        if self.whole and other.whole:
            return StreamEnds(self.head + self.tail + other.head + other.tail, b"", size)
        # the bytes known before the first gap and after the last one
        first = self.head + self.tail + other.head if self.whole else self.head
        last = self.tail + other.head + other.tail if other.whole else other.tail
        return StreamEnds(first[:keep], last[-keep:], size)


def ends_to_wire(streams: list[StreamEnds]) -> tuple[list[list[int]], bytes]:
    """The streams as a header field (their lengths) and a payload (their bytes)."""
    lengths = [[len(s.head), len(s.tail), s.size] for s in streams]
    return lengths, b"".join(s.head + s.tail for s in streams)


def ends_from_wire(lengths: list[list[int]], payload: bytes) -> list[StreamEnds]:
    streams, at = [], 0
    for head_len, tail_len, size in lengths:
        head, tail = payload[at:at + head_len], payload[at + head_len:at + head_len + tail_len]
        streams.append(StreamEnds(head, tail, size))
        at += head_len + tail_len
    return streams


# With all_tests, judging goes on past a wrong answer or an error but ends at these: a
# program out of time or memory on one input is taken to be so on every longer one (the
# tests run in ascending input length), and running it again would cost the limit again.
PAST_A_LIMIT = (Verdict.TLE, Verdict.MLE)


def runtime_verdict(run: TestRun, time_limit_s: float, output_limit_bytes: int) -> Verdict | None:
    """The verdict of a run from how it ended, or None when its output must be compared."""
    # SIGXCPU comes from RLIMIT_CPU alone; its tick-sampled clock can fire a hair before
    # the rusage clock reaches the limit, so it is TLE whatever cpu_s says.
    cpu_killed = run.exit_code == -signal.SIGXCPU or (
        run.exit_code == -signal.SIGKILL and run.cpu_s >= time_limit_s)
    if run.wall_timeout or cpu_killed or run.cpu_s > time_limit_s:
        return Verdict.TLE
    if run.output_size >= output_limit_bytes or run.exit_code == -signal.SIGXFSZ:
        return Verdict.OLE
    if run.exit_code == EXIT_MEMORY:
        return Verdict.MLE
    if run.exit_code in (EXIT_UNSERIALIZABLE, EXIT_ASSERTION):
        return Verdict.WA
    if run.exit_code != 0:
        return Verdict.RE
    return None


def output_verdict(kind: str, output: bytes, expected: str) -> Verdict:
    try:
        text = output.decode("utf-8")
    except UnicodeDecodeError:
        return Verdict.WA
    return Verdict.AC if outputs_match(kind, text, expected) else Verdict.WA


def judge_request(request: dict, seq: int, zygote_in: int, zygote_out: int) -> dict:
    """Judge one sample in the sandbox. `request` carries the code, the tests in run
    order and the limits; the reply lists one record per test run."""
    tests = request["tests"]
    output_limit = int(request["output_limit_mb"] * 2**20)
    wire.send(zygote_in, {
        "op": "sample", "seq": seq, "code": request["code"], "kind": request["kind"],
        "func_name": request.get("func_name", ""), "time_limit_s": request["time_limit_s"],
        "memory_limit_mb": request["memory_limit_mb"], "output_limit_mb": request["output_limit_mb"],
        "tests_key": request["tests_key"],
    })
    runs: list[dict] = []
    compile_error = ""
    while True:
        header, payload = wire.receive(zygote_out)
        if header.get("seq") != seq:
            continue
        op = header["op"]
        if op == "need_inputs":
            wire.send(zygote_in, {"op": "inputs", "seq": seq, "inputs": [t[0] for t in tests]})
        elif op == "compile_error":
            compile_error = header["error"]
        elif op == "test":
            run = TestRun.from_wire(header, payload)
            index = header["index"]
            verdict = runtime_verdict(run, request["time_limit_s"], output_limit)
            if verdict is None:
                verdict = output_verdict(request["kind"], run.output, tests[index][1])
            # the runs of this test so far: one near the limit is timed again (timing.py)
            timed = runs[index]["timing_runs"] + 1 if len(runs) > index else 1
            record = {"verdict": verdict.value, "cpu_s": run.cpu_s, "wall_s": run.wall_s,
                      "peak_mb": run.peak_mb, "exit_code": run.exit_code,
                      "wall_timeout": run.wall_timeout,
                      "stderr": run.stderr if verdict == Verdict.RE else "",
                      "setup_failed": run.exit_code == EXIT_SETUP, "timing_runs": timed}
            runs[index:] = [record]  # a test timed again keeps its last run
            if (verdict == Verdict.TLE and timed < TIMING_RUNS
                    and near_the_limit(run.cpu_s, request["time_limit_s"], run.wall_timeout)):
                wire.send(zygote_in, {"op": "again", "seq": seq})
                continue
            more = index + 1 < len(tests) and (verdict == Verdict.AC or (
                request["all_tests"] and verdict not in PAST_A_LIMIT))
            wire.send(zygote_in, {"op": "next" if more else "stop", "seq": seq})
        elif op == "sample_end":
            if header["status"] != 0 and len(runs) < len(tests) and not compile_error:
                # The sample process died: the compiler crashed, or a hostile program
                # running under the caller's own uid (userns level) killed it.
                runs.append({"verdict": Verdict.RE.value, "cpu_s": 0.0, "wall_s": 0.0,
                             "peak_mb": 0.0, "exit_code": header["status"],
                             "stderr": f"sample process died (status {header['status']})",
                             "setup_failed": False, "timing_runs": 1})
            return {"op": "result", "runs": runs, "compile_error": compile_error}


# execute(): how a run ended, by the runtime verdict it would get when judged
_EXECUTION_STATUS = {None: "ok", Verdict.TLE: "timeout", Verdict.MLE: "memory",
                     Verdict.OLE: "output_limit", Verdict.RE: "error", Verdict.WA: "error"}


def execute_request(request: dict, seq: int, zygote_in: int, zygote_out: int) -> dict:
    """Run a program once on one input in the sandbox; the reply holds its exit, the head
    and tail of its stdout and stderr (`output_chars` each) and a status."""
    limit = request["output_chars"]
    wire.send(zygote_in, {
        "op": "sample", "seq": seq, "code": request["code"], "kind": request["kind"],
        "func_name": request["func_name"],
        "time_limit_s": request["time_limit_s"], "memory_limit_mb": request["memory_limit_mb"],
        "output_limit_mb": request["output_limit_mb"], "tests_key": None,
        "inputs": [request["stdin"]], "excerpt_bytes": request["excerpt_bytes"],
    })
    reply: dict = {}
    while True:
        header, payload = wire.receive(zygote_out)
        if header.get("seq") != seq:
            continue
        if header["op"] == "compile_error":
            stderr, truncated = head_tail(header["error"], limit)
            reply = _executed(1, "", stderr, 0.0, 0.0, "compile_error", truncated)
        elif header["op"] == "test":
            reply = _execution_reply(header, payload, request)
            wire.send(zygote_in, {"op": "stop", "seq": seq})
        elif header["op"] == "sample_end":
            if not reply:  # the sample process died before it reported a run
                reply = _executed(header["status"], "",
                                  f"sample process died (status {header['status']})",
                                  0.0, 0.0, "error", False)
            return reply


def _execution_reply(header: dict, payload: bytes, request: dict) -> dict:
    run = TestRun.from_wire(header, b"")
    stdout_ends, stderr_ends, *returned = ends_from_wire(header["streams"], payload)
    if returned and returned[0].size:  # call-based: the return value's JSON ends stdout
        value = returned[0].then(StreamEnds(b"\n", b"", 1), request["excerpt_bytes"])
        stdout_ends = stdout_ends.then(value, request["excerpt_bytes"])
    stdout, stdout_cut = stdout_ends.cut(request["output_chars"])
    stderr, stderr_cut = stderr_ends.cut(request["output_chars"])
    if run.exit_code == EXIT_UNSERIALIZABLE:
        stderr += "the return value is not JSON data\n"
    verdict = runtime_verdict(run, request["time_limit_s"],
                              int(request["output_limit_mb"] * 2**20))
    return _executed(run.exit_code, stdout, stderr, run.cpu_s, run.wall_s,
                     _EXECUTION_STATUS[verdict], stdout_cut or stderr_cut)


def _executed(exit_code: int, stdout: str, stderr: str, cpu_s: float, wall_s: float,
              status: str, truncated: bool) -> dict:
    return {"op": "executed", "exit_code": exit_code, "stdout": stdout, "stderr": stderr,
            "cpu_s": cpu_s, "wall_s": wall_s, "status": status, "truncated": truncated}
