"""Where does the judge differ from LiveCodeBench's own harness?

Every bundled family's eval instance INDEX (default 1) is built as `problems build`
builds it, and each of its reference programs (the efficient one, every slow one, the
buggy one) is judged twice: by the sandboxed judge (`JudgePool`, the problem's CPU
time limit, tests in ascending length, the first failure ends the run) and by
LiveCodeBench's `check_correctness` (the `nvidia-livecodebench` package: one process
per program, a wall-clock alarm of TIMEOUT seconds per test, tests in the given order).
Prints, per program kind, how many programs each calls correct, and every program on
which they disagree with both verdicts and LiveCodeBench's error message.

    python benchmarks/livecodebench_harness.py [--index 1] [--timeout 6] [--workers 2]
        [--json OUT]

The LiveCodeBench harness is not a sandbox (its own docs say so); only this project's
trusted reference programs run through it here.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from codefrontier.judge import JudgePool, Sample
from codefrontier.suite.build import instances, to_problem


def lcb_sample(problem) -> dict:
    """The problem's tests in LiveCodeBench's `input_output` record."""
    record = {"inputs": [t.input for t in problem.tests],
              "outputs": [t.output for t in problem.tests]}
    if problem.kind == "call":
        record["fn_name"] = problem.func_name
    return {"input_output": json.dumps(record)}


def lcb_verdict(job: tuple[dict, str, int]) -> tuple[bool, str]:
    """(correct, LiveCodeBench's message) of one program."""
    from livecodebench.evaluation.compute_code_generation_metrics import check_correctness

    sample, code, timeout = job
    results, metadata = check_correctness(sample, code, timeout=timeout, debug=False)
    correct = bool(results) and all(r is True for r in results)
    return correct, "" if correct else str(metadata.get("error_message") or metadata)[:160]


def programs(index: int) -> list[tuple[str, object, str]]:
    """(kind, problem, program) of every reference of each family's eval instance."""
    chosen = [i for i in instances("eval", index + 1) if i.index == index]
    found = []
    for instance in chosen:
        problem = to_problem(instance)
        found.append(("efficient", problem, instance.efficient))
        found += [(f"slow:{name}", problem, code) for name, code in instance.slow.items()]
        if instance.buggy is not None:
            found.append(("buggy", problem, instance.buggy))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=int, default=1, help="the eval instance per family")
    parser.add_argument("--timeout", type=int, default=6,
                        help="LiveCodeBench's wall-clock seconds per test (its default)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write the counts and disagreements here")
    args = parser.parse_args()

    cases = programs(args.index)
    problems = {problem.problem_id: problem for _, problem, _ in cases}
    with JudgePool(workers=args.workers) as pool:
        judged = pool.judge(problems, [Sample(problem.problem_id, number, code=code)
                                       for number, (_, problem, code) in enumerate(cases)],
                            progress=True)
    with ProcessPoolExecutor(max_workers=args.workers) as executor:
        theirs = list(executor.map(lcb_verdict, [(lcb_sample(problem), code, args.timeout)
                                                 for _, problem, code in cases]))
    counts: Counter = Counter()
    disagreements = []
    for (kind, problem, _), ours, (lcb_correct, message) in zip(cases, judged, theirs,
                                                                strict=True):
        our_correct = ours.outcome == "correct"
        counts[(kind.split(":")[0], "judge")] += our_correct
        counts[(kind.split(":")[0], "livecodebench")] += lcb_correct
        counts[(kind.split(":")[0], "programs")] += 1
        if our_correct != lcb_correct:
            disagreements.append({"problem": problem.problem_id, "program": kind,
                                  "judge": ours.outcome, "livecodebench": message or "correct"})
    print(f"{len(cases)} programs of {len(problems)} problems (eval instance {args.index})")
    print(f"{'program':<12}{'n':>5}{'judge correct':>15}{'LCB correct':>13}")
    for kind in ("efficient", "slow", "buggy"):
        print(f"{kind:<12}{counts[(kind, 'programs')]:>5}{counts[(kind, 'judge')]:>15}"
              f"{counts[(kind, 'livecodebench')]:>13}")
    print(f"\n{len(disagreements)} disagreements")
    for item in disagreements:
        print(f"  {item['problem']:<40} {item['program']:<18} judge {item['judge']:<22} "
              f"LiveCodeBench: {item['livecodebench']}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"counts": {f"{k[0]}/{k[1]}": v for k, v in counts.items()},
                       "disagreements": disagreements}, handle, indent=1)


if __name__ == "__main__":
    main()
