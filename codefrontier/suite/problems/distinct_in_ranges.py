from codefrontier.suite.gen import array_and_queries, ints, range_queries
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    values = ints(rng, n, 1, max(1, n // 2))
    return array_and_queries(values, range_queries(rng, n, left_max=n // 2, right_min=n // 2))


FAMILY = Family(
    slug="distinct-in-ranges",
    title="Distinct values in ranges",
    difficulty="hard",
    statements=("""\
Answer q queries on an array of n integers: how many distinct values appear
among a_l..a_r (1-indexed, inclusive)?

Input: n and q; the n integers; then q lines "l r".
Output: q lines, the answers in order.
Constraints: 1 <= n, q <= 100000, 1 <= a_i <= 10^9.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = data[2:2 + n]
queries = sorted(
    (int(data[3 + n + 2 * i]), int(data[2 + n + 2 * i]), i) for i in range(q))
tree = [0] * (n + 1)

def add(i, delta):
    while i <= n:
        tree[i] += delta
        i += i & -i

def prefix(i):
    total = 0
    while i > 0:
        total += tree[i]
        i -= i & -i
    return total

last = {}
answers = [0] * q
position = 0
for r, l, index in queries:
    while position < r:
        value = a[position]
        position += 1
        if value in last:
            add(last[value], -1)
        last[value] = position
        add(position, 1)
    answers[index] = prefix(r) - prefix(l - 1)
print("\\n".join(map(str, answers)))
""",
    slow="""\
n, q = map(int, input().split())
a = input().split()
for _ in range(q):
    l, r = map(int, input().split())
    seen = set()
    for i in range(l - 1, r):
        seen.add(a[i])
    print(len(seen))
""",
    buggy="""\
import sys
from itertools import accumulate

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = data[2:2 + n]
seen = set()
first = []
for v in a:
    first.append(0 if v in seen else 1)
    seen.add(v)
prefix = [0, *accumulate(first)]
out = []
for i in range(q):
    l, r = int(data[2 + n + 2 * i]), int(data[3 + n + 2 * i])
    out.append(prefix[r] - prefix[l - 1])
print("\\n".join(map(str, out)))
""",
    generate=generate,
    edge_cases=("5 3\n1 2 1 3 2\n1 5\n2 4\n3 3\n", "1 1\n4\n1 1\n"),
)
