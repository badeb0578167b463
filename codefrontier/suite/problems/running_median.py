from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the percentile p reported after each arrival (nearest rank: the ceil(i*p/100)-th
    # smallest of the first i numbers); p = 50 is the lower median
    return {"p": rng.randint(10, 90)}


FAMILY = Family(
    slug="running-median",
    time_limit_s=1.0,
    title="Running median",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Numbers arrive one at a time. After the i-th arrival print percentile $p of
the i numbers so far, by nearest rank: the t-th smallest of them, where
t = ceil(i * $p / 100).

Input: n, then the n integers in arrival order.
Output: n values on one line.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
You receive a stream of n integers. Each time a new integer arrives, sort the
integers received so far (say i of them) and report the one at rank
ceil(i * $p / 100), counting ranks from 1 (percentile $p by nearest rank).

Input: the first line holds n; the second line holds the n integers in order.
Output: the n reported values on one line, separated by spaces.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
Maintain percentile $p of a growing list. The list starts empty and the
n given integers are appended one by one; after each append, output the
k-th smallest element of the list with k = ceil(i * $p / 100), where i is its
current length.

Input: n, then the n integers.
Output: n integers on one line.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
    ),
    efficient="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n = int(data[0])
low, high = [], []  # max-heap (negated) of the t smallest, min-heap of the rest
out = []
for i, v in enumerate(map(int, data[1:1 + n]), 1):
    if low and v < -low[0]:
        heapq.heappush(low, -v)
    else:
        heapq.heappush(high, v)
    t = (i * $p + 99) // 100
    while len(low) < t:
        heapq.heappush(low, -heapq.heappop(high))
    while len(low) > t:
        heapq.heappush(high, -heapq.heappop(low))
    out.append(-low[0])
print(" ".join(map(str, out)))
""",
    slow=(SlowProgram("n^2 log n", """\
n = int(input())
a = list(map(int, input().split()))
out = []
for i in range(1, n + 1):
    prefix = sorted(a[:i])
    out.append(prefix[(i * $p + 99) // 100 - 1])
print(*out)
""", 5),),
    buggy="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n = int(data[0])
low, high = [], []
out = []
for i, v in enumerate(map(int, data[1:1 + n]), 1):
    if low and v < -low[0]:
        heapq.heappush(low, -v)
    else:
        heapq.heappush(high, v)
    t = max(1, i * $p // 100)
    while len(low) < t:
        heapq.heappush(low, -heapq.heappop(high))
    while len(low) > t:
        heapq.heappush(high, -heapq.heappop(low))
    out.append(-low[0])
print(" ".join(map(str, out)))
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -10**6, 10**6),
    edge_cases=("5\n5 15 1 3 8\n", "1\n-4\n", "4\n2 2 1 1\n", "6\n3 3 3 1 1 1\n"),
)
