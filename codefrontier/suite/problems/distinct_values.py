from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import SuiteProblem

PROBLEM = SuiteProblem(
    slug="distinct-values",
    title="Distinct values",
    difficulty="easy",
    statement="""\
Count how many different values appear among n integers.

Input: the first line holds n; the second line holds the n integers.
Output: the number of distinct values.
Constraints: 1 <= n <= 100000, |a_i| <= 10^9.""",
    efficient="""\
import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
print(len(set(data[1:1 + n])))
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
seen = []
for v in a:
    if v not in seen:
        seen.append(v)
print(len(seen))
""",
    buggy="""\
from collections import Counter
n = int(input())
a = list(map(int, input().split()))
print(sum(1 for c in Counter(a).values() if c == 1))
""",
    generate=lambda rng, n: array_input(rng, n, 0, max(1, n)),
    edge_cases=("5\n3 1 3 2 1\n", "1\n7\n", "4\n-1 -1 -1 -1\n"),
)
