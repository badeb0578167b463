from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    k = max(1, n // 2)
    return f"{n} {k}\n{line(ints(rng, n, 0, 10**6))}\n"


FAMILY = Family(
    slug="sliding-window-max",
    title="Sliding window maximum",
    difficulty="medium",
    statements=("""\
Print the maximum of every window of k consecutive elements of an array, from
left to right (n - k + 1 values).

Input: n and k; then the n integers.
Output: the n - k + 1 maxima on one line.
Constraints: 1 <= k <= n <= 100000, 0 <= a_i <= 10^6.""",),
    efficient="""\
import sys
from collections import deque

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
window = deque()
out = []
for i, v in enumerate(a):
    while window and a[window[-1]] <= v:
        window.pop()
    window.append(i)
    if window[0] <= i - k:
        window.popleft()
    if i >= k - 1:
        out.append(a[window[0]])
print(" ".join(map(str, out)))
""",
    slow="""\
n, k = map(int, input().split())
a = list(map(int, input().split()))
out = []
for i in range(n - k + 1):
    best = a[i]
    for j in range(i, i + k):
        if a[j] > best:
            best = a[j]
    out.append(best)
print(*out)
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
best = max(a[:k])
out = [best]
for i in range(k, n):
    best = max(best, a[i])
    out.append(best)
print(" ".join(map(str, out)))
""",
    generate=generate,
    edge_cases=("8 3\n1 3 1 2 0 5 4 1\n", "1 1\n7\n", "3 3\n2 9 4\n"),
)
