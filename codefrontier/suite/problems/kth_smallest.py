from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    return f"{n} {max(1, n // 2)}\n{line(ints(rng, n, -10**6, 10**6))}\n"


FAMILY = Family(
    slug="kth-smallest",
    title="The k-th smallest",
    difficulty="easy",
    statements=("""\
Print the k-th smallest of n integers (k = 1 is the minimum; equal values count
separately).

Input: n and k; then the n integers.
Output: the k-th smallest value.
Constraints: 1 <= k <= n <= 100000, |a_i| <= 10^9.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
print(sorted(map(int, data[2:2 + n]))[k - 1])
""",
    slow="""\
n, k = map(int, input().split())
a = list(map(int, input().split()))
for _ in range(k - 1):
    a.remove(min(a))
print(min(a))
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
print(sorted(set(map(int, data[2:2 + n])))[min(k, len(set(data[2:2 + n]))) - 1])
""",
    generate=generate,
    edge_cases=("5 2\n3 1 2 1 5\n", "1 1\n9\n", "4 4\n2 8 8 1\n"),
)
