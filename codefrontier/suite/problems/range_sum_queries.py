from codefrontier.suite.gen import array_and_queries, ints, range_queries
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    values = ints(rng, n, -1000, 1000)
    return array_and_queries(values, range_queries(rng, n, left_max=n))


FAMILY = Family(
    slug="range-sum-queries",
    title="Range sums",
    difficulty="easy",
    statements=("""\
Given an array of n integers, answer q queries: the sum of a_l..a_r (1-indexed,
inclusive).

Input: n and q; the n integers; then q lines "l r".
Output: q lines, the answers in order.
Constraints: 1 <= n, q <= 100000, 1 <= l <= r <= n, |a_i| <= 1000.""",),
    efficient="""\
import sys
from itertools import accumulate

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
prefix = [0, *accumulate(map(int, data[2:2 + n]))]
out = []
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]), int(data[pos + 1])
    pos += 2
    out.append(prefix[r] - prefix[l - 1])
print("\\n".join(map(str, out)))
""",
    slow="""\
n, q = map(int, input().split())
a = list(map(int, input().split()))
for _ in range(q):
    l, r = map(int, input().split())
    total = 0
    for i in range(l - 1, r):
        total += a[i]
    print(total)
""",
    buggy="""\
import sys
from itertools import accumulate

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
prefix = [0, *accumulate(map(int, data[2:2 + n]))]
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]), int(data[pos + 1])
    pos += 2
    print(prefix[r - 1] - prefix[l - 1] if r > l else prefix[r] - prefix[l - 1])
""",
    generate=generate,
    edge_cases=("5 3\n1 2 3 4 5\n1 5\n2 3\n4 4\n", "1 1\n-7\n1 1\n"),
)
