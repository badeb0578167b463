"""The worker's side of judging one sample: drive the sandbox, turn runs into verdicts.

This code holds the expected outputs; it runs only in the worker process,
which untrusted programs never share memory with.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field

from codefrontier.judge import wire
from codefrontier.judge.child import EXIT_MEMORY, EXIT_SETUP, EXIT_UNSERIALIZABLE
from codefrontier.judge.compare import outputs_match
from codefrontier.judge.verdicts import Verdict


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
    if run.exit_code == EXIT_UNSERIALIZABLE:
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
            runs.append({"verdict": verdict.value, "cpu_s": run.cpu_s, "wall_s": run.wall_s,
                         "peak_mb": run.peak_mb, "exit_code": run.exit_code,
                         "wall_timeout": run.wall_timeout,
                         "stderr": run.stderr if verdict == Verdict.RE else "",
                         "setup_failed": run.exit_code == EXIT_SETUP})
            more = index + 1 < len(tests) and (verdict == Verdict.AC or request["all_tests"])
            wire.send(zygote_in, {"op": "next" if more else "stop", "seq": seq})
        elif op == "sample_end":
            if header["status"] != 0 and len(runs) < len(tests) and not compile_error:
                # The sample process died: the compiler crashed, or a hostile program
                # running under the caller's own uid (userns level) killed it.
                runs.append({"verdict": Verdict.RE.value, "cpu_s": 0.0, "wall_s": 0.0,
                             "peak_mb": 0.0, "exit_code": header["status"],
                             "stderr": f"sample process died (status {header['status']})",
                             "setup_failed": False})
            return {"op": "result", "runs": runs, "compile_error": compile_error}
