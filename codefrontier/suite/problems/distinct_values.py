from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # values count as the same when they agree modulo m, a constant of the instance; m is
    # large, so that a large input has tens of thousands of different values and the naive
    # list scan stays quadratic
    return {"m": rng.randint(100_000, 999_999)}


FAMILY = Family(
    slug="distinct-values",
    title="Distinct values",
    difficulty="easy",
    time_limit_s=1.0,
    knobs=knobs,
    statements=(
        """\
Two integers are considered the same when they leave the same remainder modulo
$m. Count how many different values appear among n integers.

Input: the first line holds n; the second line holds the n integers.
Output: the number of different values.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
You are given n integers. Call two of them equal if their difference is a
multiple of $m. How many pairwise different values are there?

Input: n on the first line, then the n integers on the second line.
Output: one number, the count of different values.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
    ),
    efficient="""\
import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
print(len({int(x) % $m for x in data[1:1 + n]}))
""",
    slow=(SlowProgram("naive", """\
n = int(input())
a = list(map(int, input().split()))
seen = []
for v in a:
    if v % $m not in seen:
        seen.append(v % $m)
print(len(seen))
""", 5),),
    buggy="""\
from collections import Counter
n = int(input())
a = list(map(int, input().split()))
print(sum(1 for c in Counter(v % $m for v in a).values() if c == 1))
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -10**9, 10**9),
    edge_cases=("5\n3 1 3 2 1\n", "1\n7\n", "4\n-1 -1 -1 -1\n"),
)
