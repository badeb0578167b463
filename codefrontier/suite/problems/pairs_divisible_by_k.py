from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    k = rng.choice([2, 4, 6, 10, 12])
    return f"{n} {k}\n{line(ints(rng, n, 0, 10**6))}\n"


FAMILY = Family(
    slug="pairs-divisible-by-k",
    title="Pairs with a sum divisible by k",
    difficulty="medium",
    statements=("""\
Count the pairs i < j for which a_i + a_j is divisible by k.

Input: n and k; then the n integers.
Output: the number of pairs.
Constraints: 1 <= n <= 100000, 1 <= k <= 1000, 0 <= a_i <= 10^9.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
seen = [0] * k
pairs = 0
for v in map(int, data[2:2 + n]):
    r = v % k
    pairs += seen[(k - r) % k]
    seen[r] += 1
print(pairs)
""",
    slow="""\
n, k = map(int, input().split())
a = list(map(int, input().split()))
print(sum(1 for i in range(n) for j in range(i + 1, n) if (a[i] + a[j]) % k == 0))
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
count = [0] * k
for v in map(int, data[2:2 + n]):
    count[v % k] += 1
pairs = count[0] * (count[0] - 1) // 2
for r in range(1, k // 2 + 1):
    pairs += count[r] * count[k - r]
print(pairs)
""",
    generate=generate,
    edge_cases=("5 3\n1 2 3 4 5\n", "1 1\n7\n", "4 4\n2 2 2 2\n"),
)
