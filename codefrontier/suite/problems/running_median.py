from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="running-median",
    title="Running median",
    difficulty="hard",
    statements=("""\
Numbers arrive one at a time. After each arrival print the median of all numbers
so far: for an even count, the smaller of the two middle values.

Input: n, then the n integers in arrival order.
Output: n medians on one line.
Constraints: 1 <= n <= 100000, |a_i| <= 10^9.""",),
    efficient="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n = int(data[0])
low, high = [], []  # max-heap (negated) of the smaller half, min-heap of the larger half
out = []
for v in map(int, data[1:1 + n]):
    if low and v > -low[0]:
        heapq.heappush(high, v)
    else:
        heapq.heappush(low, -v)
    if len(low) > len(high) + 1:
        heapq.heappush(high, -heapq.heappop(low))
    elif len(high) > len(low):
        heapq.heappush(low, -heapq.heappop(high))
    out.append(-low[0])
print(" ".join(map(str, out)))
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
out = []
for i in range(1, n + 1):
    prefix = sorted(a[:i])
    out.append(prefix[(i - 1) // 2])
print(*out)
""",
    buggy="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n = int(data[0])
low, high = [], []
out = []
for v in map(int, data[1:1 + n]):
    if low and v > -low[0]:
        heapq.heappush(high, v)
    else:
        heapq.heappush(low, -v)
    if len(low) > len(high) + 1:
        heapq.heappush(high, -heapq.heappop(low))
    elif len(high) > len(low):
        heapq.heappush(low, -heapq.heappop(high))
    out.append(high[0] if len(low) == len(high) else -low[0])
print(" ".join(map(str, out)))
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -10**6, 10**6),
    edge_cases=("5\n5 15 1 3 8\n", "1\n-4\n", "4\n2 2 1 1\n"),
)
