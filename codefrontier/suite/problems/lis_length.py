from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="lis-length",
    title="Longest increasing subsequence",
    difficulty="medium",
    statements=("""\
Print the length of the longest strictly increasing subsequence of an array
(not necessarily contiguous).

Input: n, then the n integers.
Output: the length.
Constraints: 1 <= n <= 100000, |a_i| <= 10^9.""",),
    efficient="""\
import sys
from bisect import bisect_left

data = sys.stdin.buffer.read().split()
n = int(data[0])
tails = []
for v in map(int, data[1:1 + n]):
    i = bisect_left(tails, v)
    if i == len(tails):
        tails.append(v)
    else:
        tails[i] = v
print(len(tails))
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
best = [1] * n
for i in range(n):
    for j in range(i):
        if a[j] < a[i] and best[j] + 1 > best[i]:
            best[i] = best[j] + 1
print(max(best))
""",
    buggy="""\
import sys
from bisect import bisect_right

data = sys.stdin.buffer.read().split()
n = int(data[0])
tails = []
for v in map(int, data[1:1 + n]):
    i = bisect_right(tails, v)
    if i == len(tails):
        tails.append(v)
    else:
        tails[i] = v
print(len(tails))
""",
    generate=lambda rng, n, knobs: array_input(rng, n, 0, max(1, n // 4)),
    edge_cases=("8\n10 9 2 5 3 7 101 18\n", "1\n4\n", "5\n3 3 3 3 3\n"),
)
