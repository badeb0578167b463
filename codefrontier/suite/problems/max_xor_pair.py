from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the register width: only the lowest b bits of each number are kept
    return {"b": rng.randint(10, 24)}


def generate(rng, n, knobs):
    # small values in small tests; in large ones they exceed 2^b, so the width matters
    n = max(2, n)
    return array_input(rng, n, 0, min(2**30 - 1, 10 * n * n))


FAMILY = Family(
    slug="max-xor-pair",
    time_limit_s=1.0,
    title="Maximum XOR of two numbers",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Each of n numbers is loaded into a $b-bit register, which keeps only its lowest
$b bits (the number modulo 2^$b). Print the largest XOR of two loaded values
a_i, a_j over all pairs i < j.

Input: n, then the n integers.
Output: the maximum XOR.
Constraints: 2 <= n <= $max_n, 0 <= a_i < 2^30.""",
        """\
Replace every a_i by a_i mod 2^$b (keep its lowest $b bits), then print the
largest value of a_i XOR a_j over all pairs i < j.

Input: the first line holds n; the second line holds the n integers.
Output: one integer, the maximum XOR.
Constraints: 2 <= n <= $max_n, 0 <= a_i < 2^30.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = [int(x) % (1 << $b) for x in data[1:1 + n]]
best = 0
for bit in range($b - 1, -1, -1):
    best <<= 1
    prefixes = {v >> bit for v in a}
    candidate = best | 1
    if any(candidate ^ p in prefixes for p in prefixes):
        best = candidate
print(best)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = [int(x) % (1 << $b) for x in input().split()]
best = 0
for i in range(n):
    for j in range(i + 1, n):
        if a[i] ^ a[j] > best:
            best = a[i] ^ a[j]
print(best)
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = sorted(int(x) % (1 << $b) for x in data[1:1 + n])
print(max(a[i] ^ a[i + 1] for i in range(n - 1)))
""",
    generate=generate,
    edge_cases=lambda knobs: ("6\n3 10 5 25 2 8\n", "2\n0 0\n", "3\n1 2 4\n",
                              f"3\n{2 ** knobs['b'] + 5} {2 ** knobs['b'] - 1} 6\n"),
)
