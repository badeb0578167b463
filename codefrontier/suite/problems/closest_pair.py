from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    n = max(n, 2)
    span = 10 * n
    points = {(rng.randint(0, span), rng.randint(0, span)) for _ in range(n)}
    while len(points) < 2:
        points.add((rng.randint(0, span), rng.randint(0, span)))
    return f"{len(points)}\n" + "".join(f"{x} {y}\n" for x, y in sorted(points, key=lambda p: rng.random()))


def knobs(rng):
    # the weight of the vertical term of the distance: dx^2 + w * dy^2
    return {"w": rng.randint(2, 12)}


FAMILY = Family(
    slug="closest-pair",
    time_limit_s=1.5,
    title="Closest pair of points",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Given n distinct points with integer coordinates, print the smallest distance
between two of them, where the distance between (x1, y1) and (x2, y2) is
(x1 - x2)^2 + $w * (y1 - y2)^2.

Input: n, then n lines "x y".
Output: the smallest distance.
Constraints: 2 <= n <= $max_n, 0 <= x, y <= 10^9.""",
        """\
On this map a vertical step costs $w times as much as a horizontal one: the
distance from (x1, y1) to (x2, y2) is (x1 - x2)^2 + $w * (y1 - y2)^2. Among n
distinct points with integer coordinates, find the smallest distance between
two different points.

Input: the first line holds n; each of the next n lines holds "x y".
Output: one integer, the smallest distance.
Constraints: 2 <= n <= $max_n, 0 <= x, y <= 10^9.""",
        """\
Print min over pairs of distinct points of (x1 - x2)^2 + $w * (y1 - y2)^2, for
n distinct points with integer coordinates.

Input: n, then n lines "x y".
Output: the minimum.
Constraints: 2 <= n <= $max_n, 0 <= x, y <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
points = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
best = (points[1][0] - points[0][0]) ** 2 + $w * (points[1][1] - points[0][1]) ** 2
# Sweep by x; compare each point only with the points within sqrt(best) in x and y.
from bisect import bisect_left, insort
window = []  # (y, x) of points whose x is within reach, sorted by y
start = 0
for x, y in points:
    reach = best ** 0.5
    while points[start][0] < x - reach:
        sx, sy = points[start]
        del window[bisect_left(window, (sy, sx))]
        start += 1
    low = bisect_left(window, (y - reach, -1))
    for wy, wx in window[low:]:
        if wy > y + reach:
            break
        d = (wx - x) ** 2 + $w * (wy - y) ** 2
        if d < best:
            best = d
            reach = best ** 0.5
    insort(window, (y, x))
print(best)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
points = [tuple(map(int, input().split())) for _ in range(n)]
best = None
for i in range(n):
    x1, y1 = points[i]
    for j in range(i + 1, n):
        dx, dy = x1 - points[j][0], y1 - points[j][1]
        d = dx * dx + $w * dy * dy
        if best is None or d < best:
            best = d
print(best)
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
points = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
print(min((points[i + 1][0] - points[i][0]) ** 2 + $w * (points[i + 1][1] - points[i][1]) ** 2
          for i in range(n - 1)))
""",
    generate=generate,
    edge_cases=("4\n0 0\n5 5\n1 4\n9 0\n", "2\n0 0\n3 4\n", "3\n0 0\n0 10\n1 5\n",
                "3\n0 0\n1 100\n2 0\n"),
)
