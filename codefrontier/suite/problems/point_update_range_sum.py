from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    rows = []
    # mostly wide sums, which the naive loop pays for in full
    for _ in range(n):
        if rng.random() < 0.25:
            rows.append(f"1 {rng.randint(1, n)} {rng.randint(-1000, 1000)}")
        else:
            left = rng.randint(1, max(1, n // 4))
            rows.append(f"2 {left} {rng.randint(max(left, 3 * n // 4), n)}")
    return f"{n} {n}\n{line(ints(rng, n, -1000, 1000))}\n" + "\n".join(rows) + "\n"


FAMILY = Family(
    slug="point-update-range-sum",
    title="Updates and range sums",
    difficulty="hard",
    statements=("""\
Maintain an array of n integers under q operations:
"1 i x" sets a_i = x; "2 l r" asks for a_l + ... + a_r (1-indexed, inclusive).

Input: n and q; the n integers; then q operations, one per line.
Output: one line per query of type 2.
Constraints: 1 <= n, q <= 100000, |a_i|, |x| <= 1000.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = [0] + [int(x) for x in data[2:2 + n]]
tree = [0] * (n + 1)
for i in range(1, n + 1):
    tree[i] += a[i]
    parent = i + (i & -i)
    if parent <= n:
        tree[parent] += tree[i]

def prefix(i):
    total = 0
    while i > 0:
        total += tree[i]
        i -= i & -i
    return total

out = []
pos = 2 + n
for _ in range(q):
    kind, x, y = data[pos], int(data[pos + 1]), int(data[pos + 2])
    pos += 3
    if kind == b"1":
        delta, a[x] = y - a[x], y
        while x <= n:
            tree[x] += delta
            x += x & -x
    else:
        out.append(prefix(y) - prefix(x - 1))
print("\\n".join(map(str, out)))
""",
    slow="""\
n, q = map(int, input().split())
a = [0] + list(map(int, input().split()))
for _ in range(q):
    kind, x, y = map(int, input().split())
    if kind == 1:
        a[x] = y
    else:
        total = 0
        for i in range(x, y + 1):
            total += a[i]
        print(total)
""",
    buggy="""\
import sys
from itertools import accumulate

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = [int(x) for x in data[2:2 + n]]
prefix = [0, *accumulate(a)]
out = []
pos = 2 + n
for _ in range(q):
    kind, x, y = data[pos], int(data[pos + 1]), int(data[pos + 2])
    pos += 3
    if kind == b"1":
        a[x - 1] = y
    else:
        out.append(prefix[y] - prefix[x - 1])
print("\\n".join(map(str, out)))
""",
    generate=generate,
    edge_cases=("5 4\n1 2 3 4 5\n2 1 5\n1 3 10\n2 2 4\n2 3 3\n", "1 2\n5\n1 1 -5\n2 1 1\n"),
)
