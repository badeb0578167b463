from codefrontier.suite.gen import array_and_queries, ints, range_queries
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    n, b = max(n, 1), knobs["base"] - 1  # queries are drawn 1-indexed, then shifted
    rows = [" ".join(str(int(v) + b) for v in row.split())
            for row in range_queries(rng, n, left_max=n // 3, right_min=2 * n // 3)]
    # one-digit values in tiny tests, so that three elements (a range whose minimum the
    # buggy variant can miss) fit in 30 bytes
    top = 9 if n <= 4 else 10**6
    return array_and_queries(ints(rng, n, -top, top), rows)


def knobs(rng):
    # base: positions (of the array and in the queries) counted from 0 or 1
    return {"base": rng.choice((0, 1))}


def edge_cases(knobs):
    b = knobs["base"] - 1
    return (f"5 3\n4 2 5 1 3\n{1 + b} {3 + b}\n{4 + b} {5 + b}\n{2 + b} {2 + b}\n",
            f"1 1\n-3\n{1 + b} {1 + b}\n")


FAMILY = Family(
    slug="range-min-queries",
    time_limit_s=0.5,
    title="Range minimum",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Answer q queries on a fixed array of n integers: the minimum of a_l..a_r
(inclusive; positions are counted from $base).

Input: n and q; the n integers; then q lines "l r".
Output: q lines, the answers in order.
Constraints: 1 <= n, q <= $max_n, |a_i| <= 10^9.""",
        """\
An array of n integers does not change. For each of q queries "l r", print the
minimum value among the elements at positions l to r, both ends included. The
first element of the array is at position $base.

Input: the first line holds n and q, the second the n integers; then q lines,
each with l and r.
Output: one line per query, in order.
Constraints: 1 <= n, q <= $max_n, |a_i| <= 10^9.""",
        """\
Given n integers indexed from $base, report for each of q ranges [l, r] (both
ends included) the minimum element in that range.

Input: n and q; the n integers; then q lines "l r".
Output: q lines, one answer each.
Constraints: 1 <= n, q <= $max_n, |a_i| <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
table = [list(map(int, data[2:2 + n]))]
step = 1
while 2 * step <= n:
    previous = table[-1]
    table.append([min(previous[i], previous[i + step]) for i in range(n - 2 * step + 1)])
    step *= 2
out = []
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]) - $base, int(data[pos + 1]) + 1 - $base
    pos += 2
    k = (r - l).bit_length() - 1
    row = table[k]
    out.append(min(row[l], row[r - (1 << k)]))
print("\\n".join(map(str, out)))
""",
    slow=(SlowProgram("quadratic", """\
n, q = map(int, input().split())
a = list(map(int, input().split()))
for _ in range(q):
    l, r = map(int, input().split())
    low = a[l - $base]
    for i in range(l - $base, r + 1 - $base):
        if a[i] < low:
            low = a[i]
    print(low)
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
table = [list(map(int, data[2:2 + n]))]
step = 1
while 2 * step <= n:
    previous = table[-1]
    table.append([min(previous[i], previous[i + step]) for i in range(n - 2 * step + 1)])
    step *= 2
out = []
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]) - $base, int(data[pos + 1]) + 1 - $base
    pos += 2
    k = (r - l).bit_length() - 1
    out.append(table[k][l])
print("\\n".join(map(str, out)))
""",
    generate=generate,
    edge_cases=edge_cases,
)
