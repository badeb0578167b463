from codefrontier.suite.gen import array_and_queries, ints, range_queries
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    rows = range_queries(rng, n, left_max=n // 3, right_min=2 * n // 3)
    return array_and_queries(ints(rng, n, -10**6, 10**6), rows)


FAMILY = Family(
    slug="range-min-queries",
    title="Range minimum",
    difficulty="hard",
    statements=("""\
Answer q queries on a fixed array of n integers: the minimum of a_l..a_r
(1-indexed, inclusive).

Input: n and q; the n integers; then q lines "l r".
Output: q lines, the minima in order.
Constraints: 1 <= n, q <= 100000, |a_i| <= 10^9.""",),
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
    l, r = int(data[pos]) - 1, int(data[pos + 1])
    pos += 2
    k = (r - l).bit_length() - 1
    row = table[k]
    out.append(min(row[l], row[r - (1 << k)]))
print("\\n".join(map(str, out)))
""",
    slow="""\
n, q = map(int, input().split())
a = list(map(int, input().split()))
for _ in range(q):
    l, r = map(int, input().split())
    low = a[l - 1]
    for i in range(l - 1, r):
        if a[i] < low:
            low = a[i]
    print(low)
""",
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
    l, r = int(data[pos]) - 1, int(data[pos + 1])
    pos += 2
    k = (r - l).bit_length() - 1
    out.append(table[k][l])
print("\\n".join(map(str, out)))
""",
    generate=generate,
    edge_cases=("5 3\n4 2 5 1 3\n1 3\n4 5\n2 2\n", "1 1\n-3\n1 1\n"),
)
