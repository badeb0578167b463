from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="max-xor-pair",
    title="Maximum XOR of two numbers",
    difficulty="hard",
    statements=("""\
Print the largest value of a_i XOR a_j over all pairs i < j.

Input: n, then the n integers.
Output: the maximum XOR.
Constraints: 2 <= n <= 100000, 0 <= a_i < 2^30.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
best = 0
for bit in range(29, -1, -1):
    best <<= 1
    prefixes = {v >> bit for v in a}
    candidate = best | 1
    if any(candidate ^ p in prefixes for p in prefixes):
        best = candidate
print(best)
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
best = 0
for i in range(n):
    for j in range(i + 1, n):
        if a[i] ^ a[j] > best:
            best = a[i] ^ a[j]
print(best)
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = sorted(map(int, data[1:1 + n]))
print(max(a[i] ^ a[i + 1] for i in range(n - 1)))
""",
    generate=lambda rng, n, knobs: array_input(rng, max(2, n), 0, min(2**30 - 1, 10 * max(2, n))),
    edge_cases=("6\n3 10 5 25 2 8\n", "2\n0 0\n", "3\n1 2 4\n"),
)
