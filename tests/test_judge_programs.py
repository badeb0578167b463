"""Real programs through the real sandbox: every verdict, both problem kinds."""

import pytest
from conftest import SUM_OK, call_problem, stdin_problem

from codefrontier.judge import JudgePool, Sample
from codefrontier.judge.timing import kill_after_s
from codefrontier.problems.schema import Test

pytestmark = pytest.mark.slow


def run(judge, problem, code, **kwargs):
    [result] = judge.judge({problem.problem_id: problem},
                           [Sample(problem.problem_id, 0, code=code)], **kwargs)
    return result


SLOW_TESTS = (Test("1\n", "1"), Test("2\n", "2"), Test("3000000\n", "3000000"))
SLOW_SUM = "n = int(input())\nprint(sum(1 for _ in range(n)))\n"


@pytest.mark.parametrize(
    ("code", "verdicts", "outcome"),
    [
        (SUM_OK, ["AC"] * 4, "correct"),
        ("print(-1)", ["WA"], "correctness_failure"),
        ("a, b = map(int, input().split())\nprint(a + b if a < 15 else 0)",
         ["AC", "AC", "WA"], "correctness_failure"),
        ("raise ValueError('boom')", ["RE"], "correctness_failure"),
        ("import sys\nsys.exit(3)", ["RE"], "correctness_failure"),
        ("def f(:\n", ["RE"], "correctness_failure"),
        ("while True: pass", ["TLE"], "correctness_failure"),
        ("x = bytearray(10 ** 10)", ["MLE"], "correctness_failure"),
        ("import sys\nwhile True: sys.stdout.write('x' * 65536)", ["OLE"], "correctness_failure"),
    ],
)
def test_verdicts_of_real_programs(judge, code, verdicts, outcome):
    result = run(judge, stdin_problem(), code)
    assert (result.verdicts, result.outcome) == (verdicts, outcome)


def test_a_slow_program_fails_by_time_after_passing_small_tests(judge):
    problem = stdin_problem("slow", tests=SLOW_TESTS, time_limit_s=0.5)
    result = run(judge, problem, "import time\nn = int(input())\nif n > 10: time.sleep(5)\nprint(n)")
    assert result.verdicts == ["AC", "AC", "TLE"]
    assert result.outcome == "optimization_failure"
    assert result.tle_cause == "wall"  # asleep: the wall-clock backstop ended it
    result = run(judge, problem, SLOW_SUM + "while n > 10: pass\n")
    assert (result.verdicts, result.outcome) == (["AC", "AC", "TLE"], "optimization_failure")
    assert result.cpu_s[-1] >= 0.5
    assert result.tle_cause == "cpu"
    assert result.max_passed_input_len == 2 and result.first_failure == 2


def test_a_time_limit_exceeded_costs_its_kill_point_not_a_whole_second(judge):
    """RLIMIT_CPU counts whole seconds; the judge ends a program at a fraction of one
    (timing.kill_after_s of its limit)."""
    problem = stdin_problem("spin", tests=(Test("1\n", "1"),), time_limit_s=0.3)
    result = run(judge, problem, "while True: pass")
    assert (result.verdicts, result.tle_cause, result.timing_runs) == (["TLE"], "cpu", [1])
    assert kill_after_s(0.3) <= result.cpu_s[0] < 0.8


def test_a_program_slowed_by_a_loaded_machine_is_judged_by_its_cpu_time(tmp_path):
    """Twenty busy processes share the judge's one core: a program that needs a fifth of
    its CPU limit takes several limits of wall time, and is still accepted."""
    import os
    import subprocess
    import sys

    problem = stdin_problem("loaded", tests=(Test("1\n", "1"),), time_limit_s=1.0)
    spin = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass\n"
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})  # the pool's workers inherit the one core
    # each in a session of its own: with autogroup scheduling a session shares one slot
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                start_new_session=True) for _ in range(20)]
    try:
        with JudgePool(workers=1) as judge:
            result = run(judge, problem, spin + "print(input())")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
        os.sched_setaffinity(0, before)
    assert result.verdicts == ["AC"], (result.verdicts, result.tle_cause)
    assert result.tle_cause is None


def test_a_memory_hungry_program_fails_by_memory_after_passing_small_tests(judge):
    problem = stdin_problem("mem", tests=SLOW_TESTS, memory_limit_mb=64)
    code = "n = int(input())\nx = [0] * (n * 10)\nprint(n)"
    result = run(judge, problem, code)
    assert (result.verdicts, result.outcome) == (["AC", "AC", "MLE"], "optimization_failure")


def test_each_test_starts_with_empty_output(judge):
    # The stdout file is reused between tests: a shorter output must not keep the tail
    # of a longer one.
    problem = stdin_problem("shrink", tests=(Test("1\n", "aaaa"), Test("22\n", "b")))
    code = "n = int(input())\nprint('aaaa' if n == 1 else 'b')"
    assert run(judge, problem, code).verdicts == ["AC", "AC"]


def test_all_tests_runs_past_the_first_failure(judge):
    code = "a, b = map(int, input().split())\nprint(a + b if a != 10 else 0)"
    assert run(judge, stdin_problem(), code).verdicts == ["AC", "WA"]
    assert run(judge, stdin_problem(), code, all_tests=True).verdicts == ["AC", "WA", "AC", "AC"]


def test_all_tests_stops_at_a_run_out_of_time():
    """Longer tests would cost the limit again: they count as failed, unrun."""
    tests = (Test("1\n", "1"), Test("7\n", "0"), Test("3000000\n", "3000000"),
             Test("3000001\n", "3000001"))
    problem = stdin_problem("slow-all", tests=tests, time_limit_s=0.5)
    with JudgePool(workers=1) as pool:
        result = run(pool, problem, SLOW_SUM + "while n > 10: pass\n", all_tests=True)
    assert result.verdicts == ["AC", "WA", "TLE"]


def test_records_cpu_time_peak_memory_and_input_lengths(judge):
    result = run(judge, stdin_problem(), SUM_OK)
    assert result.input_lens == [4, 6, 6, 6]
    assert len(result.cpu_s) == len(result.peak_mb) == 4
    assert all(0 <= t < 0.5 for t in result.cpu_s)
    assert all(1 < m < 200 for m in result.peak_mb)
    assert result.isolation == judge.isolation.level


def test_runtime_error_keeps_the_traceback(judge):
    result = run(judge, stdin_problem(), "raise ValueError('boom')")
    assert "ValueError: boom" in result.error
    noisy = run(judge, stdin_problem(), "import sys\nprint('x' * 5000, file=sys.stderr)\n"
                                        "raise ValueError('after noise')")
    assert "ValueError: after noise" in noisy.error  # the end of stderr is kept
    assert "codefrontier" not in result.error  # the harness's frames are not shown


def test_stdout_reaches_the_judge_when_the_program_exits_normally(judge):
    code = "import sys\na, b = map(int, sys.stdin.readline().split())\nsys.stdout.write(str(a + b))"
    assert run(judge, stdin_problem(), code).outcome == "correct"


def test_call_based_problems(judge):
    ok = "class Solution:\n    def add(self, a: Any, b: Any) -> Any:\n        return a + b\n"
    assert run(judge, call_problem(), ok).outcome == "correct"
    tuple_result = "class Solution:\n    def add(self, a, b):\n        return tuple(a + b) if isinstance(a, list) else a + b\n"
    assert run(judge, call_problem(), tuple_result).outcome == "correct"
    wrong = "class Solution:\n    def add(self, a, b):\n        return a\n"
    assert run(judge, call_problem(), wrong).verdicts == ["WA"]


def test_a_lying_eq_is_wrong_answer(judge):
    liar = ("class Liar:\n    def __eq__(self, other):\n        return True\n"
            "class Solution:\n    def add(self, a, b):\n        return Liar()\n")
    assert run(judge, call_problem(), liar).verdicts == ["WA"]
    int_liar = ("class Int(int):\n    def __eq__(self, other):\n        return True\n"
                "class Solution:\n    def add(self, a, b):\n        return Int(0)\n")
    assert run(judge, call_problem(), int_liar).verdicts == ["WA"]


def test_printing_in_a_call_based_solution_does_not_change_its_answer(judge):
    code = "class Solution:\n    def add(self, a, b):\n        print('debug', a)\n        return a + b\n"
    assert run(judge, call_problem(), code).outcome == "correct"


def test_completions_go_through_extraction(judge):
    problem = stdin_problem()
    samples = [Sample("sum", 0, completion=f"Reasoning.\n```python\n{SUM_OK}```\n"),
               Sample("sum", 1, completion="No code here.")]
    ok, missing = judge.judge({"sum": problem}, samples)
    assert ok.outcome == "correct"
    assert missing.outcome == "format_error" and missing.format_error_cause == "no_code_block"
    assert missing.verdicts == []


def test_judging_twice_gives_the_same_outcomes(judge):
    problem = stdin_problem("slow2", tests=SLOW_TESTS, time_limit_s=0.5)
    codes = [SUM_OK, "print(1)", SLOW_SUM, "import random\nprint(random.randint(1, 2))",
             "print(hash('abc') % 2 + 1)"]
    problems = {"sum": stdin_problem(), "slow2": problem}
    samples = [Sample(pid, i, code=c) for pid in problems for i, c in enumerate(codes)]
    first = [(r.outcome, r.verdicts) for r in judge.judge(problems, samples)]
    second = [(r.outcome, r.verdicts) for r in judge.judge(problems, samples)]
    assert first == second


def test_results_come_back_in_sample_order(judge):
    problem = stdin_problem()
    samples = [Sample("sum", i, code=SUM_OK if i % 2 else "print(0)") for i in range(10)]
    results = judge.judge({"sum": problem}, samples)
    assert [r.sample_id for r in results] == list(range(10))
    assert [r.outcome for r in results] == ["correctness_failure", "correct"] * 5


def test_unknown_problem_ids_are_rejected(judge):
    with pytest.raises(KeyError, match="not in the problem set"):
        judge.judge({}, [Sample("nope", 0, code="print(1)")])


def test_problems_evicted_from_the_worker_caches_are_sent_again():
    # A cache too small for two problems: every switch between them misses in the
    # worker and in the zygote, and the verdicts stay the same.
    first, second = stdin_problem("first"), stdin_problem("second", tests=SLOW_TESTS)
    samples = [Sample(pid, i, code=code) for i in range(3)
               for pid, code in (("first", SUM_OK), ("second", "print(int(input()))"))]
    with JudgePool(workers=1, cache_mb=0.0) as pool:
        results = pool.judge({"first": first, "second": second}, samples)
    assert [r.outcome for r in results] == ["correct"] * 6



# every run fails with a message no other run prints
ONE_OF_A_KIND = "import os\nraise SystemExit(os.urandom(16).hex())\n"


def test_copies_of_a_program_are_judged_once():
    """Copies in one batch and in the next share one run (and so one error message)."""
    problem = stdin_problem("unique")
    samples = [Sample(problem.problem_id, i, code=ONE_OF_A_KIND) for i in range(24)]
    with JudgePool(workers=2) as pool:
        first = pool.judge({problem.problem_id: problem}, samples)
        again = pool.judge({problem.problem_id: problem}, samples)
    assert [r.sample_id for r in first] == list(range(24))
    assert {r.verdicts[0] for r in first} == {"RE"}
    assert len({r.error for r in first + again}) == 1


def test_a_fresh_judgment_runs_every_copy_again():
    """`fresh` (a timing measured again: calibration's second judgment, the speed
    reference) runs each copy, in the batch and after it: every error message differs."""
    problem = stdin_problem("unique")
    samples = [Sample(problem.problem_id, i, code=ONE_OF_A_KIND) for i in range(6)]
    with JudgePool(workers=2) as pool:
        first = pool.judge({problem.problem_id: problem}, samples)
        again = pool.judge({problem.problem_id: problem}, samples, fresh=True)
    assert len({r.error for r in again} | {first[0].error}) == 7


def test_a_program_is_judged_afresh_under_other_limits_or_tests():
    variants = [stdin_problem("unique"), stdin_problem("unique", time_limit_s=1.5),
                stdin_problem("unique", tests=(Test("1 2\n", "3"),))]
    with JudgePool(workers=1) as pool:
        errors = {run(pool, problem, ONE_OF_A_KIND).error for problem in variants}
        errors |= {run(pool, variants[0], ONE_OF_A_KIND, all_tests=True).error}
    assert len(errors) == 4
