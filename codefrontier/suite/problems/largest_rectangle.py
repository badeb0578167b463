from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the width of every bar (the area is the height times w times the number of bars)
    return {"w": rng.randint(2, 50)}


FAMILY = Family(
    slug="largest-rectangle",
    title="Largest rectangle in a histogram",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
A histogram has n bars, each of width $w, with heights h_1..h_n. Print the area
of the largest axis-aligned rectangle inside it.

Input: n, then the n heights.
Output: the area.
Constraints: 1 <= n <= $max_n, 0 <= h_i <= 10^9.""",
        """\
n bars stand side by side with no gaps; every bar is $w units wide and bar i is
h_i units tall. Find the largest area of a rectangle with sides parallel to the
axes that fits inside the bars.

Input: the first line holds n; the second line holds h_1..h_n.
Output: one integer, the largest area.
Constraints: 1 <= n <= $max_n, 0 <= h_i <= 10^9.""",
        """\
Print the maximum area of a rectangle lying under a histogram whose n bars have
heights h_1..h_n and a common width of $w. The rectangle's sides are parallel to
the axes.

Input: n, then the n heights.
Output: the maximum area.
Constraints: 1 <= n <= $max_n, 0 <= h_i <= 10^9.""",
    ),
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
print(best * $w)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
h = list(map(int, input().split()))
best = 0
for i in range(n):
    low = h[i]
    for j in range(i, n):
        low = min(low, h[j])
        best = max(best, low * (j - i + 1))
print(best * $w)
""", 4),),
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
print(best * $w)
""",
    generate=lambda rng, n, knobs: array_input(rng, n, 0, 1000),
    edge_cases=("6\n2 1 5 6 2 3\n", "1\n7\n", "4\n3 3 3 3\n", "5\n5 4 3 2 1\n"),
)
