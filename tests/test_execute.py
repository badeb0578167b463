"""JudgePool.execute: one run of a program on a chosen input, in the judge's sandbox."""

import threading

import pytest
from conftest import SUM_OK, sandbox_processes, stdin_problem

from codefrontier.judge import Execution, Sample
from codefrontier.sandbox.textcut import cut_marker

# this test's own limits; a test that is about a limit sets it
LIMITS = {"time_limit_s": 2.0, "memory_limit_mb": 512, "output_chars": 2000}


def execute(judge, code: str, stdin: str = "", **options) -> Execution:
    return judge.execute(code, stdin, **{**LIMITS, **options})


def test_prints_what_it_reads(judge):
    result = execute(judge, "import sys\nprint(sys.stdin.read().upper(), end='')", "hello\n")
    assert result == Execution(exit_code=0, stdout="HELLO\n", stderr="", cpu_s=result.cpu_s,
                               wall_s=result.wall_s, status="ok", truncated=False)
    assert result.cpu_s >= 0 and result.wall_s > 0  # measured (their size is a benchmark's)


def test_a_raising_program_gives_its_exit_code_and_traceback(judge):
    result = execute(judge, "import sys\nprint('before')\nprint('to stderr', file=sys.stderr)\n"
                           "1 / 0\n")
    assert (result.status, result.exit_code, result.stdout) == ("error", 1, "before\n")
    assert result.stderr.startswith("to stderr\nTraceback")
    assert "ZeroDivisionError" in result.stderr


def test_an_exit_status_and_a_signal(judge):
    assert execute(judge, "raise SystemExit(3)").exit_code == 3
    killed = execute(judge, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)")
    assert (killed.status, killed.exit_code) == ("error", -15)


@pytest.mark.slow
def test_an_endless_loop_times_out(judge):
    result = execute(judge, "while True: pass", time_limit_s=0.5)
    assert result.status == "timeout"
    assert 0.5 <= result.cpu_s < 2 and result.wall_s < 30  # CPU-bound: load stretches wall


@pytest.mark.slow
def test_a_sleeper_hits_the_wall_backstop(judge):
    result = execute(judge, "import time\ntime.sleep(1000)", time_limit_s=0.5)
    assert result.status == "timeout"
    assert result.wall_s < 200  # ended by the backstop, not at the end of its 1000 s sleep


def test_memory(judge):
    result = execute(judge, "x = bytearray(10 ** 10)", memory_limit_mb=64)
    assert result.status == "memory"


def test_huge_output_is_cut_to_head_and_tail(judge):
    result = execute(judge, "for i in range(100000):\n    print(i)", output_chars=200)
    assert (result.status, result.truncated) == ("ok", True)
    assert result.stdout.startswith("0\n1\n2\n") and result.stdout.endswith("99998\n99999\n")
    assert "characters cut ...]" in result.stdout
    assert len(result.stdout) <= 200 + len(cut_marker(10**7))


def test_huge_stderr_is_cut_too(judge):
    result = execute(judge, "import sys\nfor i in range(100000):\n    print(i, file=sys.stderr)",
                           output_chars=100)
    assert result.truncated and result.stdout == ""
    assert result.stderr.startswith("0\n1\n") and result.stderr.endswith("99999\n")


def test_endless_output_hits_the_output_limit(judge):
    result = execute(judge, "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)")
    assert (result.status, result.truncated) == ("output_limit", True)
    assert result.stdout.startswith("yyy") and len(result.stdout) < 2100


def test_nul_bytes_and_binary_give_clean_text(judge):
    result = execute(judge, "import sys\nsys.stdout.buffer.write(b'a\\x00b\\xff\\x1b[0mc\\n' * 3)\n"
                           "sys.stderr.buffer.write(bytes(range(256)))")
    assert result.status == "ok"
    assert result.stdout == "ab\ufffd[0mc\n" * 3
    assert "\x00" not in result.stderr and "\x1b" not in result.stderr


def test_a_compile_error(judge):
    result = execute(judge, "def f(:\n    pass\n")
    assert result.status == "compile_error"
    assert "SyntaxError" in result.stderr and result.stdout == ""


def test_a_daemon_is_gone_when_the_run_returns(judge):
    daemon = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              "        time.sleep(1000)\n    os._exit(0)\nos.wait()\nprint('parent done')\n")
    result = execute(judge, daemon)
    assert (result.status, result.stdout) == ("ok", "parent done\n")
    assert sandbox_processes(judge) == []


@pytest.mark.slow
def test_execute_interleaved_with_judging_keeps_verdicts_right(judge):
    problem = stdin_problem()
    wrong = "print(0)\n"
    failures: list[str] = []

    def judge_many(offset: int) -> None:
        for i in range(6):
            code = SUM_OK if i % 2 == 0 else wrong
            [result] = judge.judge({"sum": problem}, [Sample("sum", offset + i, code=code)])
            expected = "correct" if i % 2 == 0 else "correctness_failure"
            if result.outcome != expected:
                failures.append(f"judge {offset + i}: {result.outcome}")

    def execute_many(offset: int) -> None:
        for i in range(6):
            # the same input a test of `problem` has: nothing is cached under it
            result = execute(judge, SUM_OK if i % 2 else "print(input())", "0 1\n")
            expected = "1\n" if i % 2 else "0 1\n"
            if (result.status, result.stdout) != ("ok", expected):
                failures.append(f"execute {offset + i}: {result}")

    threads = [threading.Thread(target=judge_many, args=(0,)),
               threading.Thread(target=execute_many, args=(100,)),
               threading.Thread(target=judge_many, args=(200,)),
               threading.Thread(target=execute_many, args=(300,))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sandbox_processes(judge) == []


def test_a_call_based_program_ends_stdout_with_its_return_value(judge):
    code = "class Solution:\n    def add(self, a, b):\n        print('adding')\n        return a + b\n"
    result = execute(judge, code, "[1, 2]\n[3]", kind="call", func_name="add")
    assert (result.status, result.stdout) == ("ok", "adding\n[1, 2, 3]\n")
    unserializable = execute(judge, "class Solution:\n    def f(self):\n        return object()\n",
                                   "", kind="call", func_name="f")
    assert unserializable.status == "error" and "not JSON" in unserializable.stderr


def test_a_call_based_programs_error_shows_its_frames_and_none_of_the_harness(judge):
    """The judge's own paths never reach an observation: they depend on the checkout."""
    missing = execute(judge, "class Solution:\n    pass\n", "[1]", kind="call", func_name="f")
    assert missing.stderr == "AttributeError: 'Solution' object has no attribute 'f'\n"
    raising = execute(judge, "class Solution:\n    def f(self, n):\n        return 1 // n\n",
                            "0", kind="call", func_name="f")
    assert raising.stderr.startswith("Traceback (most recent call last):\n")
    assert raising.stderr.endswith('  File "main.py", line 3, in f\nZeroDivisionError: '
                                   "integer division or modulo by zero\n")
    assert "codefrontier" not in raising.stderr


def test_a_huge_return_value_is_cut_too(judge):
    code = "class Solution:\n    def f(self, n):\n        print('start')\n        return list(range(n))\n"
    result = execute(judge, code, "100000", kind="call", func_name="f", output_chars=100)
    assert result.truncated and result.stdout.startswith("start\n[0, 1, 2")
    assert result.stdout.endswith("99998, 99999]\n")


def test_an_unknown_kind_is_refused(judge):
    with pytest.raises(ValueError):
        execute(judge, "print(1)", kind="interactive")
