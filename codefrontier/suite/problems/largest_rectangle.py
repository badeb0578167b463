from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="largest-rectangle",
    title="Largest rectangle in a histogram",
    difficulty="hard",
    statements=("""\
A histogram has n bars of width 1 and heights h_1..h_n. Print the area of the
largest axis-aligned rectangle inside it.

Input: n, then the n heights.
Output: the area.
Constraints: 1 <= n <= 100000, 0 <= h_i <= 10^9.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
heights = [int(x) for x in data[1:1 + n]] + [0]
stack = [-1]
best = 0
for i, h in enumerate(heights):
    while stack[-1] != -1 and heights[stack[-1]] >= h:
        top = heights[stack.pop()]
        best = max(best, top * (i - stack[-1] - 1))
    stack.append(i)
print(best)
""",
    slow="""\
n = int(input())
h = list(map(int, input().split()))
best = 0
for i in range(n):
    low = h[i]
    for j in range(i, n):
        low = min(low, h[j])
        best = max(best, low * (j - i + 1))
print(best)
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
heights = [int(x) for x in data[1:1 + n]] + [0]
stack = []
best = 0
for i, h in enumerate(heights):
    start = i
    while stack and stack[-1][1] >= h:
        start, top = stack.pop()
        best = max(best, top * (i - start))
    stack.append((i, h))
print(best)
""",
    generate=lambda rng, n, knobs: array_input(rng, n, 0, 1000),
    edge_cases=("6\n2 1 5 6 2 3\n", "1\n7\n", "4\n3 3 3 3\n", "5\n5 4 3 2 1\n"),
)
