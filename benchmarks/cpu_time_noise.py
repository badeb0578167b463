"""How much does a program's CPU time move from run to run, and how often does a
program near the time limit change its verdict?

1. Noise: one fixed program (a counting loop) run `--runs` times through the judge's
   sandbox (`JudgePool.execute`, a limit far above it), on the machine as it is and then
   oversubscribed by `--factor`; prints the fastest, median and slowest CPU time.
2. Flips: programs that do a fixed amount of work, sized from the fastest time of part 1
   to need 0.8, 0.9, 1.0, 1.1 and 1.2 × a 0.5 s limit, each judged `--repeats` times (a
   comment makes each copy a new program, so no cached verdict is reused), as the
   machine is and oversubscribed. A flip is a verdict other than that program's most
   common one. Counted twice: by the judge's verdict (a run over the limit but short of
   1.5 limits is timed again, up to 3 runs: judge/timing.py) and by the verdict the first
   run alone would have given.

3. With `--verdicts` (a main job's verdicts files and its `--problems`): how many of
   their test runs ended near the limit, where the machine can decide a verdict.

    python benchmarks/cpu_time_noise.py [--runs 30] [--repeats 10] [--factor 3]
    python benchmarks/cpu_time_noise.py --problems results/data/eval.parquet \
        --verdicts results/tiny/*/*/verdicts.parquet
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter

from load import burners_for, busy_processes

from codefrontier.base.tables import read_records
from codefrontier.judge import JudgePool, Sample
from codefrontier.judge.timing import TIMING_RUNS
from codefrontier.problems.schema import Problem, Test, load_problems

LIMIT_S = 0.5
SHARES = (0.8, 0.9, 1.0, 1.1, 1.2)  # of the limit, at the fastest time of part 1
UNIT_LOOPS = 1_000_000  # one unit of work


def counting_loop(units: float) -> str:
    return (f"s = 0\nfor i in range({int(units * UNIT_LOOPS)}):\n    s += i * i % 7\n"
            "print(input())\n")


def unit_seconds(runs: int) -> list[float]:
    """CPU seconds of one unit of work, per run."""
    with JudgePool(workers=1) as pool:
        return [pool.execute(counting_loop(1), stdin="1\n", time_limit_s=20,
                             memory_limit_mb=512, output_chars=200).cpu_s
                for _ in range(runs)]


def judge_shares(fastest_unit_s: float, repeats: int) -> dict[float, list[tuple[str, str]]]:
    """Per share of the limit: (judge's verdict, first run's verdict) of each copy."""
    problem = Problem(problem_id="noise", title="noise", statement="", difficulty="easy",
                      source="benchmark", kind="stdin", tests=(Test("1\n", "1"),),
                      time_limit_s=LIMIT_S)
    codes = {share: counting_loop(share * LIMIT_S / fastest_unit_s) for share in SHARES}
    samples = [Sample("noise", index, code=f"{codes[share]}# copy {copy}\n")
               for index, (share, copy) in enumerate(
                   (share, copy) for share in SHARES for copy in range(repeats))]
    with JudgePool() as pool:
        results = pool.judge({"noise": problem}, samples, progress=True)
    verdicts: dict[float, list[tuple[str, str]]] = {share: [] for share in SHARES}
    for index, result in enumerate(results):
        first_run = "AC" if result.verdicts == ["AC"] and result.timing_runs == [1] else "TLE"
        verdicts[SHARES[index // repeats]].append((result.verdicts[0], first_run))
    return verdicts


def flips(verdicts: list[str]) -> int:
    return len(verdicts) - Counter(verdicts).most_common(1)[0][1]


def spread(seconds: list[float]) -> str:
    return (f"fastest {min(seconds):.3f} s, median {statistics.median(seconds):.3f} s, "
            f"slowest {max(seconds):.3f} s ({max(seconds) / min(seconds):.2f}x)")


def runs_near_the_limit(problems_path: str, verdicts_paths: list[str]) -> None:
    limits = {pid: p.time_limit_s for pid, p in load_problems(problems_path).problems.items()}
    bands = ((0.0, 0.5), (0.5, 0.7), (0.7, 1.0), (1.0, 1.5), (1.5, float("inf")))
    counts, total = Counter(), 0
    for path in verdicts_paths:
        for row in read_records(path):
            for cpu_s in row["cpu_s"]:
                share = cpu_s / limits[row["problem_id"]]
                counts[next(band for band in bands if band[0] <= share < band[1])] += 1
                total += 1
    print(f"{total} test runs in {len(verdicts_paths)} verdicts files, by CPU time / limit:")
    for low, high in bands:
        print(f"  [{low}, {high}): {counts[(low, high)]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30, help="runs of the fixed program")
    parser.add_argument("--repeats", type=int, default=10, help="copies of each program")
    parser.add_argument("--factor", type=int, default=3, help="processes per core under load")
    parser.add_argument("--problems", help="the problems the verdicts files judged")
    parser.add_argument("--verdicts", nargs="+", help="count their runs near the limit, only")
    args = parser.parse_args()
    if args.verdicts:
        if not args.problems:
            parser.error("--verdicts needs --problems")
        runs_near_the_limit(args.problems, args.verdicts)
        return
    conditions = {"as is": 0, f"{args.factor}x oversubscribed": burners_for(args.factor)}
    noise = {}
    for name, burners in conditions.items():
        with busy_processes(burners):
            noise[name] = unit_seconds(args.runs)
        print(f"{name}: one unit of work over {args.runs} runs: {spread(noise[name])}")
    fastest = min(noise["as is"])
    print(f"\nflips among {args.repeats} copies per program (limit {LIMIT_S} s; judge's "
          f"verdict with up to {TIMING_RUNS} runs / first run alone):")
    print("| share of the limit | " + " | ".join(conditions) + " |")
    print("|---|" + "---|" * len(conditions))
    table = {}
    for name, burners in conditions.items():
        with busy_processes(burners):
            table[name] = judge_shares(fastest, args.repeats)
    for share in SHARES:
        cells = []
        for name in conditions:
            pairs = table[name][share]
            judged, first = [p[0] for p in pairs], [p[1] for p in pairs]
            cells.append(f"{Counter(judged)['AC']} AC, {flips(judged)} flips / "
                         f"{Counter(first)['AC']} AC, {flips(first)} flips")
        print(f"| {share} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
