from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # values count as the same when they agree modulo m, a constant of the instance; m is
    # large, so that a large input has tens of thousands of different values and the naive
    # list scan stays quadratic
    return {"m": rng.randint(100_000, 999_999)}


def generate(rng, n, knobs):
    # Mostly different remainders (the naive scan stays quadratic), and about one value in
    # ten (at least one, from two values on) given the remainder of another value with a
    # different multiple of m: a count of the values that occur once is then wrong.
    n, m = max(n, 1), knobs["m"]
    a = ints(rng, n, -10**9, 10**9)
    for _ in range(max(1, n // 10) if n > 1 else 0):
        i, j = rng.sample(range(n), 2)
        r = a[i] % m
        a[j] = r + m * rng.randint(-((10**9 + r) // m), (10**9 - r) // m)
    return f"{n}\n{line(a)}\n"


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
    # a value counts when no earlier one has its remainder (the list scan `not in seen`
    # runs in C, 3 times too fast at 10^5 bytes for any limit of 0.5 s or more)
    slow=(SlowProgram("quadratic", """\
n = int(input())
r = [v % $m for v in map(int, input().split())]
count = 0
for i in range(n):
    new = True
    for j in range(i):
        if r[j] == r[i]:
            new = False
            break
    if new:
        count += 1
print(count)
""", 5),),
    buggy="""\
from collections import Counter
n = int(input())
a = list(map(int, input().split()))
print(sum(1 for c in Counter(v % $m for v in a).values() if c == 1))
""",
    generate=generate,
    edge_cases=("5\n3 1 3 2 1\n", "1\n7\n", "4\n-1 -1 -1 -1\n"),
)
