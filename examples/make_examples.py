"""Writes examples/problems.jsonl and examples/samples.jsonl (deterministic).

Two problems, one stdin and one call-based, with tests from 10 bytes to about
100 kB of input, and samples that show each outcome the judge assigns.
Run: python examples/make_examples.py
"""

import json
import random
from pathlib import Path

HERE = Path(__file__).parent


def count_pairs(values: list[int], target: int) -> int:
    seen: dict[int, int] = {}
    pairs = 0
    for v in values:
        pairs += seen.get(target - v, 0)
        seen[v] = seen.get(v, 0) + 1
    return pairs


def max_subarray(nums: list[int]) -> int:
    best = current = nums[0]
    for x in nums[1:]:
        current = max(x, current + x)
        best = max(best, current)
    return best


def pair_tests(rng: random.Random) -> list[dict]:
    tests = []
    for n in (2, 3, 10, 30, 100, 300, 1000, 3000, 10000, 20000):
        values = [rng.randint(-1000, 1000) for _ in range(n)]
        target = rng.randint(-50, 50)
        text = f"{n} {target}\n{' '.join(map(str, values))}\n"
        tests.append({"input": text, "output": str(count_pairs(values, target))})
    return tests


def subarray_tests(rng: random.Random) -> list[dict]:
    tests = []
    for n in (1, 3, 10, 100, 1000, 10000, 20000):
        nums = [rng.randint(-100, 100) for _ in range(n)]
        tests.append({"input": json.dumps(nums), "output": json.dumps(max_subarray(nums))})
    return tests


PROBLEMS = [
    {"problem_id": "example/count-pairs", "title": "Count pairs",
     "statement": "Read n and t, then n integers. Print how many pairs i < j have a_i + a_j = t.",
     "difficulty": "easy", "source": "example", "kind": "stdin", "func_name": "",
     "starter_code": "", "time_limit_s": 1.0, "memory_limit_mb": 256},
    {"problem_id": "example/max-subarray", "title": "Maximum subarray",
     "statement": "Return the largest sum of a non-empty contiguous subarray of nums.",
     "difficulty": "easy", "source": "example", "kind": "call", "func_name": "maxSubArray",
     "starter_code": "class Solution:\n    def maxSubArray(self, nums: List[int]) -> int:\n",
     "time_limit_s": 1.0, "memory_limit_mb": 256},
]

FENCE = "```"
SAMPLES = [
    ("example/count-pairs", "Use a hash map of counts.\n" + FENCE + "python\n"
     "import sys\nn, t, *a = map(int, sys.stdin.read().split())\nseen = {}\npairs = 0\n"
     "for v in a:\n    pairs += seen.get(t - v, 0)\n    seen[v] = seen.get(v, 0) + 1\n"
     "print(pairs)\n" + FENCE + "\n"),
    ("example/count-pairs", "Check every pair.\n" + FENCE + "python\n"
     "import sys\nn, t, *a = map(int, sys.stdin.read().split())\n"
     "print(sum(a[i] + a[j] == t for i in range(n) for j in range(i + 1, n)))\n" + FENCE + "\n"),
    ("example/count-pairs", "Count ordered pairs.\n" + FENCE + "python\n"
     "import sys\nn, t, *a = map(int, sys.stdin.read().split())\n"
     "print(sum(a[i] + a[j] == t for i in range(n) for j in range(n) if i != j))\n" + FENCE + "\n"),
    ("example/count-pairs", "I think the answer is the number of pairs."),
    ("example/max-subarray", "Kadane.\n" + FENCE + "python\nclass Solution:\n"
     "    def maxSubArray(self, nums: List[int]) -> int:\n        best = cur = nums[0]\n"
     "        for x in nums[1:]:\n            cur = max(x, cur + x)\n            best = max(best, cur)\n"
     "        return best\n" + FENCE + "\n"),
    ("example/max-subarray", "All subarrays.\n" + FENCE + "python\nclass Solution:\n"
     "    def maxSubArray(self, nums: List[int]) -> int:\n"
     "        return max(sum(nums[i:j + 1]) for i in range(len(nums)) for j in range(i, len(nums)))\n"
     + FENCE + "\n"),
]


def main() -> None:
    rng = random.Random(0)
    PROBLEMS[0]["tests"] = pair_tests(rng)
    PROBLEMS[1]["tests"] = subarray_tests(rng)
    with (HERE / "problems.jsonl").open("w") as handle:
        for problem in PROBLEMS:
            handle.write(json.dumps(problem) + "\n")
    with (HERE / "samples.jsonl").open("w") as handle:
        for sample_id, (problem_id, completion) in enumerate(SAMPLES):
            handle.write(json.dumps({"problem_id": problem_id, "sample_id": sample_id,
                                     "completion": completion}) + "\n")


if __name__ == "__main__":
    main()
