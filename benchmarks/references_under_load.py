"""Do verdicts depend on the machine's load? Judge every reference of the bundled suite
(efficient, slow and buggy, per problem) on an idle machine, then again while the
machine is oversubscribed, and count the samples whose outcome or verdicts changed.

Oversubscribed by a factor F: (F − 1) × cores busy-looping processes run beside the
judge's `cores` workers, each in a session of its own (with autogroup scheduling a
session is one scheduling slot), so F processes compete for every core.

    python benchmarks/references_under_load.py [--factor 2] [--workers N]

Target: 0 flips, a flip being a changed outcome or first failing verdict (what the
rewards and the frontier see). A slow program whose time crosses the limit between
two of its tests may also fail one test earlier or later under load: counted
apart as "moved". Prints both runs' wall times and every change.
"""

from __future__ import annotations

import argparse
import os
import time

from load import burners_for, busy_processes

from codefrontier.judge import JudgePool, Sample, SampleResult
from codefrontier.suite.build import load_families, to_problem


def reference_samples() -> tuple[dict, list[Sample], dict]:
    """The problems, their programs as samples, and each sample's program kind."""
    problems, samples, kinds = {}, [], {}
    for family in load_families():  # one instance each: knobs change names, not running times
        spec = family.instance("train", 0)
        problem = to_problem(spec)
        problems[problem.problem_id] = problem
        programs = [("efficient", spec.efficient),
                    *((f"slow:{name}", code) for name, code in spec.slow.items()),
                    ("buggy", spec.buggy)]
        for index, (kind, code) in enumerate(programs):
            if code is not None:
                samples.append(Sample(problem.problem_id, index, code=code))
                kinds[(problem.problem_id, index)] = kind
    return problems, samples


def judge_all(problems: dict, samples: list[Sample], workers: int) -> tuple[list[SampleResult],
                                                                              float]:
    with JudgePool(workers=workers) as pool:
        start = time.perf_counter()
        results = pool.judge(problems, samples, progress=True)
        return results, time.perf_counter() - start


def describe(result: SampleResult) -> str:
    cause = f" ({result.tle_cause})" if result.tle_cause else ""
    return f"{result.outcome} {'/'.join(result.verdicts)}{cause}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--factor", type=int, default=2, help="processes per core under load")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    problems, samples, kinds = reference_samples()
    print(f"{len(samples)} reference programs of {len(problems)} problems, "
          f"{args.workers} judge workers")
    idle, idle_s = judge_all(problems, samples, args.workers)
    burners = burners_for(args.factor)
    with busy_processes(burners):
        loaded, loaded_s = judge_all(problems, samples, args.workers)
    changed = [(sample, a, b) for sample, a, b in zip(samples, idle, loaded, strict=True)
               if (a.outcome, a.verdicts) != (b.outcome, b.verdicts)]
    flips = [(sample, a, b) for sample, a, b in changed
             if (a.outcome, first_failing(a)) != (b.outcome, first_failing(b))]
    print(f"idle: {idle_s:.1f} s; {args.factor}× oversubscribed ({burners} busy processes): "
          f"{loaded_s:.1f} s")
    for sample, a, b in changed:
        print(f"  {'flip' if (sample, a, b) in flips else 'moved'}: {sample.problem_id} "
              f"{kinds[(sample.problem_id, sample.sample_id)]}: {describe(a)} -> {describe(b)}")
    wall = sum(r.tle_cause == "wall" for r in idle + loaded)
    print(f"verdict flips (outcome or first failing verdict): {len(flips)} of {len(samples)}; "
          f"same verdict at another test (a test near the limit): {len(changed) - len(flips)}; "
          f"TLE by the wall-clock backstop: {wall}")


def first_failing(result: SampleResult) -> str | None:
    return None if result.first_failure is None else result.verdicts[result.first_failure]

if __name__ == "__main__":
    main()
