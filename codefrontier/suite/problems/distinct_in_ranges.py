from codefrontier.suite.gen import array_and_queries, ints, range_queries
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # few residues (up to n/2) spread over many values that agree modulo m; tiny tests
    # keep one-digit values, so that four of them (and a range not starting at 1, which
    # the buggy variant needs to fail) fit in 30 bytes
    n, m = max(n, 1), knobs["m"]
    spread = min(999, n) if n >= 8 else 0
    # (tiny tests draw from 1..9: an eval build must find inputs that no train test has)
    low_values = ints(rng, n, 1, 9 if n < 8 else max(1, n // 2))
    values = [v + m * rng.randint(0, spread) for v in low_values]
    return array_and_queries(values, range_queries(rng, n, left_max=n // 2, right_min=n // 2))


def knobs(rng):
    # values count as the same when they agree modulo m; m is large, so that a large
    # input keeps tens of thousands of different values
    return {"m": rng.randint(100_000, 999_999)}


def edge_cases(knobs):
    m = knobs["m"]
    return (f"5 3\n1 2 {1 + m} 3 {2 + 2 * m}\n1 5\n2 4\n3 3\n", "1 1\n4\n1 1\n")


FAMILY = Family(
    slug="distinct-in-ranges",
    time_limit_s=0.5,
    title="Distinct values in ranges",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Two integers count as the same value when they leave the same remainder modulo
$m. Answer q queries on an array of n integers: how many different values appear
among a_l..a_r (1-indexed, inclusive)?

Input: n and q; the n integers; then q lines "l r".
Output: q lines, the answers in order.
Constraints: 1 <= n, q <= $max_n, 1 <= a_i <= 10^9.""",
        """\
You are given n integers a_1..a_n and q ranges [l, r] (positions from 1, both
ends included). For each range, report how many distinct remainders modulo $m
the numbers a_l, ..., a_r have.

Input: the first line holds n and q; the second the n integers; each of the
next q lines holds "l r".
Output: one line per query with its answer.
Constraints: 1 <= n, q <= $max_n, 1 <= a_i <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = [int(x) % $m for x in data[2:2 + n]]
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
    slow=(SlowProgram("quadratic", """\
n, q = map(int, input().split())
a = [int(x) % $m for x in input().split()]
for _ in range(q):
    l, r = map(int, input().split())
    seen = set()
    for i in range(l - 1, r):
        seen.add(a[i])
    print(len(seen))
""", 5),),
    buggy="""\
import sys
from itertools import accumulate

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = [int(x) % $m for x in data[2:2 + n]]
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
    edge_cases=edge_cases,
)
