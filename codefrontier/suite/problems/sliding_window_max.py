from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    k = max(1, n // 2)
    return f"{n} {k}\n{line(ints(rng, n, 0, 10**6))}\n"


def knobs(rng):
    # the answer (the sum of the window maxima, up to 10^11) is printed modulo m
    return {"m": rng.randint(10**6, 10**9)}


FAMILY = Family(
    slug="sliding-window-max",
    title="Sliding window maximum",
    difficulty="medium",
    knobs=knobs,
    statements=(
        """\
Take the maximum of every window of k consecutive elements of an array (there
are n - k + 1 windows) and print the sum of these maxima modulo $m.

Input: n and k; then the n integers.
Output: one integer, the sum of the window maxima modulo $m.
Constraints: 1 <= k <= n <= $max_n, 0 <= a_i <= 10^6.""",
        """\
An array of n integers is scanned with a window of width k that starts at the
left end and moves right one step at a time until it reaches the right end. At
each of the n - k + 1 positions, note the largest element inside the window.
Output the total of the noted values, reduced modulo $m.

Input: the first line holds n and k; the second line holds the array.
Output: a single number.
Constraints: 1 <= k <= n <= $max_n, 0 <= a_i <= 10^6.""",
        """\
For i = 1 .. n - k + 1 let M_i = max(a_i, ..., a_{i+k-1}). Print
(M_1 + M_2 + ... + M_{n-k+1}) mod $m.

Input: n and k, then a_1 .. a_n.
Output: the sum modulo $m.
Constraints: 1 <= k <= n <= $max_n, 0 <= a_i <= 10^6.""",
    ),
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
print(sum(out) % $m)
""",
    slow=(SlowProgram("quadratic", """\
n, k = map(int, input().split())
a = list(map(int, input().split()))
out = []
for i in range(n - k + 1):
    best = a[i]
    for j in range(i, i + k):
        if a[j] > best:
            best = a[j]
    out.append(best)
print(sum(out) % $m)
""", 5),),
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
print(sum(out) % $m)
""",
    generate=generate,
    edge_cases=("8 3\n1 3 1 2 0 5 4 1\n", "1 1\n7\n", "3 3\n2 9 4\n"),
)
