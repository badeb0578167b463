from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    b = knobs["base"] - 1  # positions are drawn from 1 and shifted to the instance's base
    rows = []
    # mostly wide sums, which the naive loop pays for in full
    for i in range(n):
        if rng.random() < 0.25 and i < n - 1:  # the last operation is a sum: output is never empty
            rows.append(f"1 {rng.randint(1, n) + b} {rng.randint(-1000, 1000)}")
        else:
            left = rng.randint(1, max(1, n // 4))
            rows.append(f"2 {left + b} {rng.randint(max(left, 3 * n // 4), n) + b}")
    return f"{n} {n}\n{line(ints(rng, n, -1000, 1000))}\n" + "\n".join(rows) + "\n"


def knobs(rng):
    # base: positions counted from 0 or 1; m: sums are printed modulo m
    return {"base": rng.choice((0, 1)), "m": rng.randint(1000, 999_999)}


def edge_cases(knobs):
    b = knobs["base"] - 1
    return (f"5 4\n1 2 3 4 5\n2 {1 + b} {5 + b}\n1 {3 + b} 10\n2 {2 + b} {4 + b}\n2 {3 + b} {3 + b}\n",
            f"1 2\n5\n1 {1 + b} -5\n2 {1 + b} {1 + b}\n")


FAMILY = Family(
    slug="point-update-range-sum",
    title="Updates and range sums",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Maintain an array of n integers under q operations:
"1 i x" sets a_i = x; "2 l r" asks for a_l + ... + a_r (inclusive), printed
modulo $m (a remainder r with 0 <= r < $m). Positions are counted from $base.

Input: n and q; the n integers; then q operations, one per line.
Output: one line per query of type 2.
Constraints: 1 <= n, q <= $max_n, |a_i|, |x| <= 1000.""",
        """\
An array of n integers, whose first element has position $base, receives q
operations. An operation "1 i x" replaces the element at position i by x. An
operation "2 l r" asks for the sum of the elements at positions l through r,
both included; answer it with the sum's non-negative remainder modulo $m.

Input: the first line holds n and q, the second the n integers; then one
operation per line.
Output: the answer to each operation of type 2, one per line, in order.
Constraints: 1 <= n, q <= $max_n, |a_i|, |x| <= 1000.""",
        """\
Process q operations on an array of n integers (positions start at $base):
"2 l r" prints the sum a_l + ... + a_r modulo $m (a remainder from 0 to below
$m), and
"1 i x" assigns x to a_i.

Input: n and q; the n integers; then q operations, one per line.
Output: one line per operation of type 2.
Constraints: 1 <= n, q <= $max_n, |a_i|, |x| <= 1000.""",
    ),
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
    kind, x, y = data[pos], int(data[pos + 1]) + 1 - $base, int(data[pos + 2])
    pos += 3
    if kind == b"1":
        delta, a[x] = y - a[x], y
        while x <= n:
            tree[x] += delta
            x += x & -x
    else:
        out.append((prefix(y + 1 - $base) - prefix(x - 1)) % $m)
print("\\n".join(map(str, out)))
""",
    slow=(SlowProgram("quadratic", """\
n, q = map(int, input().split())
a = [0] * $base + list(map(int, input().split()))
for _ in range(q):
    kind, x, y = map(int, input().split())
    if kind == 1:
        a[x] = y
    else:
        total = 0
        for i in range(x, y + 1):
            total += a[i]
        print(total % $m)
""", 5),),
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
    kind, x, y = data[pos], int(data[pos + 1]) - $base, int(data[pos + 2])
    pos += 3
    if kind == b"1":
        a[x] = y
    else:
        out.append((prefix[y + 1 - $base] - prefix[x]) % $m)
print("\\n".join(map(str, out)))
""",
    generate=generate,
    edge_cases=edge_cases,
)
