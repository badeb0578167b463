from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # half of the cells below the threshold t, half at or above it; h * w <= n, q <= n
    side, q, t = max(1, int((n / 2) ** 0.5)), max(1, n // 2), knobs["t"]
    if 4 <= n < 8:  # a 2 x 2 grid with one query fits in a tiny test
        side, q = 2, 1
    rows = [" ".join(str(rng.choice((rng.randint(0, t - 1), rng.randint(t, 99))))
                     for _ in range(side)) for _ in range(side)]
    queries = []
    for _ in range(q):
        # rectangles that leave out the first row and column (the cells above and to
        # the left of them are where a prefix-sum formula goes wrong)
        r1, c1 = ((rng.randint(2, max(2, side // 4)), rng.randint(2, max(2, side // 4)))
                  if side > 1 else (1, 1))
        queries.append(f"{r1} {c1} {rng.randint(max(r1, side // 2), side)} "
                       f"{rng.randint(max(c1, side // 2), side)}")
    return f"{side} {side} {len(queries)}\n" + "\n".join(rows) + "\n" + "\n".join(queries) + "\n"


def knobs(rng):
    # cells below the threshold t count as 0 in every sum
    return {"t": rng.randint(1, 99)}


def edge_cases(knobs):
    t = knobs["t"]
    return (f"2 3 2\n{t} {t - 1} 3\n4 {t} 6\n1 1 2 3\n2 2 2 3\n", f"1 1 1\n{t}\n1 1 1 1\n")


FAMILY = Family(
    slug="grid-rectangle-sums",
    title="Rectangle sums in a grid",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
A grid has h rows and w columns of integers from 0 to 99. Answer q queries
"r1 c1 r2 c2": the sum of the cells in rows r1..r2 and columns c1..c2
(1-indexed, inclusive), where cells with a value below $t count as 0.

Input: h, w and q; h lines of w integers; then q queries, one per line.
Output: q lines, the sums in order.
Constraints: 1 <= h * w <= $max_n, 1 <= q <= $max_n.""",
        """\
Only values of at least $t matter: in a grid of h rows and w columns (each cell
an integer from 0 to 99), a query "r1 c1 r2 c2" asks for the total of the cells
with value >= $t inside the rectangle with corners (r1, c1) and (r2, c2), rows
and columns numbered from 1 and both corners included.

Input: the first line holds h, w and q; then h lines of w integers; then q lines
with a query each.
Output: the q totals, one per line.
Constraints: 1 <= h * w <= $max_n, 1 <= q <= $max_n.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
h, w, q = int(data[0]), int(data[1]), int(data[2])
prefix = [[0] * (w + 1) for _ in range(h + 1)]
pos = 3
for r in range(1, h + 1):
    row, above = prefix[r], prefix[r - 1]
    running = 0
    for c in range(1, w + 1):
        v = int(data[pos])
        pos += 1
        running += v if v >= $t else 0
        row[c] = above[c] + running
out = []
for _ in range(q):
    r1, c1, r2, c2 = (int(x) for x in data[pos:pos + 4])
    pos += 4
    out.append(prefix[r2][c2] - prefix[r1 - 1][c2] - prefix[r2][c1 - 1] + prefix[r1 - 1][c1 - 1])
print("\\n".join(map(str, out)))
""",
    slow=(SlowProgram("quadratic", """\
h, w, q = map(int, input().split())
grid = [list(map(int, input().split())) for _ in range(h)]
for _ in range(q):
    r1, c1, r2, c2 = map(int, input().split())
    total = 0
    for r in range(r1 - 1, r2):
        for c in range(c1 - 1, c2):
            if grid[r][c] >= $t:
                total += grid[r][c]
    print(total)
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
h, w, q = int(data[0]), int(data[1]), int(data[2])
prefix = [[0] * (w + 1) for _ in range(h + 1)]
pos = 3
for r in range(1, h + 1):
    running = 0
    for c in range(1, w + 1):
        v = int(data[pos])
        pos += 1
        running += v if v >= $t else 0
        prefix[r][c] = prefix[r - 1][c] + running
out = []
for _ in range(q):
    r1, c1, r2, c2 = (int(x) for x in data[pos:pos + 4])
    pos += 4
    out.append(prefix[r2][c2] - prefix[r1 - 1][c2] - prefix[r2][c1 - 1])
print("\\n".join(map(str, out)))
""",
    generate=generate,
    edge_cases=edge_cases,
)
