from codefrontier.suite.gen import array_and_queries, ints, range_queries
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # long ranges (l in the first quarter, r in the last), so that summing each range
    # element by element goes far; queries are drawn 1-indexed, then shifted
    b = knobs["base"] - 1
    rows = [" ".join(str(int(v) + b) for v in row.split())
            for row in range_queries(rng, n, left_max=n // 4 + 1, right_min=n - n // 4)]
    return array_and_queries(ints(rng, n, -1000, 1000), rows)


def knobs(rng):
    # base: positions counted from 0 or 1; m: sums are printed modulo m
    return {"base": rng.choice((0, 1)), "m": rng.randint(1000, 999_999)}


def edge_cases(knobs):
    b = knobs["base"] - 1
    return (f"5 3\n1 2 3 4 5\n{1 + b} {5 + b}\n{2 + b} {3 + b}\n{4 + b} {4 + b}\n",
            f"1 1\n-7\n{1 + b} {1 + b}\n")


FAMILY = Family(
    slug="range-sum-queries",
    title="Range sums",
    difficulty="easy",
    time_limit_s=0.5,
    knobs=knobs,
    statements=(
        """\
Given an array of n integers, answer q queries: the sum of a_l..a_r (inclusive;
positions are counted from $base), printed modulo $m as a remainder r with
0 <= r < $m.

Input: n and q; the n integers; then q lines "l r".
Output: q lines, the answers in order.
Constraints: 1 <= n, q <= $max_n, l <= r, |a_i| <= 1000.""",
        """\
The positions of an array of n integers are counted from $base. Each of q queries "l r" asks for the total of the elements at positions l
through r, both included. Print every total reduced modulo $m (a non-negative
remainder).

Input: the first line holds n and q, the second the n integers; then q lines,
each with l and r.
Output: one line per query, in order.
Constraints: 1 <= n, q <= $max_n, l <= r, |a_i| <= 1000.""",
    ),
    efficient="""\
import sys
from itertools import accumulate

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
prefix = [0, *accumulate(map(int, data[2:2 + n]))]
out = []
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]) - $base, int(data[pos + 1]) - $base
    pos += 2
    out.append((prefix[r + 1] - prefix[l]) % $m)
print("\\n".join(map(str, out)))
""",
    slow=(SlowProgram("quadratic", """\
n, q = map(int, input().split())
a = list(map(int, input().split()))
for _ in range(q):
    l, r = map(int, input().split())
    total = 0
    for i in range(l - $base, r + 1 - $base):
        total += a[i]
    print(total % $m)
""", 5),),
    buggy="""\
import sys
from itertools import accumulate

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
prefix = [0, *accumulate(map(int, data[2:2 + n]))]
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]) - $base, int(data[pos + 1]) - $base
    pos += 2
    print((prefix[r] - prefix[l] if r > l else prefix[r + 1] - prefix[l]) % $m)
""",
    generate=generate,
    edge_cases=edge_cases,
)
