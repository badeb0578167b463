from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="most-frequent",
    title="Most frequent value",
    difficulty="easy",
    statements=("""\
Print the value that occurs most often among n integers; among equally frequent
values, print the smallest.

Input: n, then the n integers.
Output: the value.
Constraints: 1 <= n <= 100000, |a_i| <= 10^9.""",),
    efficient="""\
import sys
from collections import Counter

data = sys.stdin.buffer.read().split()
n = int(data[0])
counts = Counter(map(int, data[1:1 + n]))
top = max(counts.values())
print(min(v for v, c in counts.items() if c == top))
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
best, best_count = None, 0
for v in a:
    c = a.count(v)
    if c > best_count or (c == best_count and v < best):
        best, best_count = v, c
print(best)
""",
    buggy="""\
from collections import Counter
n = int(input())
a = list(map(int, input().split()))
print(Counter(a).most_common(1)[0][0])
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -max(2, n // 3), max(2, n // 3)),
    edge_cases=("6\n4 1 4 1 2 3\n", "1\n-5\n", "3\n9 8 7\n"),
)
