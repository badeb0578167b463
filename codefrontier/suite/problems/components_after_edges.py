from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    m = max(n, knobs["k"])
    rows = [f"{rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(m)]
    return f"{n} {m}\n" + "\n".join(rows) + "\n"


def knobs(rng):
    # the count is reported after every k-th road only (roads k, 2k, 3k, ...)
    return {"k": rng.randint(2, 9)}


def edge_cases(knobs):
    k = knobs["k"]
    return (f"4 {k}\n" + "1 2\n3 4\n" + "2 1\n" * (k - 2),
            f"3 {k + 1}\n" + "1 1\n" * k + "2 3\n",
            f"5 {2 * k}\n" + "1 2\n2 3\n3 1\n4 5\n" + "5 4\n" * (2 * k - 4))


FAMILY = Family(
    slug="components-after-edges",
    title="Components as roads open",
    difficulty="medium",
    knobs=knobs,
    statements=(
        """\
n towns start disconnected. Roads open one at a time, each joining two towns.
After every $k-th road (roads $k, 2*$k, 3*$k, ...) print the number of
connected groups of towns.

Input: n and m; then m lines "u v" (towns are numbered 1 to n).
Output: the floor(m / $k) counts on one line, separated by spaces.
Constraints: 1 <= n <= 100000, $k <= m <= 100000.""",
        """\
There are n towns (1..n) and no roads. Then m roads are built in the given
order; road i joins towns u_i and v_i. A report is published each time the
number of roads built so far is a multiple of $k: it states how many connected
groups the towns form at that moment. Print all reports.

Input: the first line holds n and m; each of the next m lines holds "u v".
Output: the reports on one line, separated by spaces (floor(m / $k) numbers).
Constraints: 1 <= n <= 100000, $k <= m <= 100000.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
parent = list(range(n + 1))

def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

groups = n
out = []
for i in range(m):
    a, b = find(int(data[2 + 2 * i])), find(int(data[3 + 2 * i]))
    if a != b:
        parent[a] = b
        groups -= 1
    if (i + 1) % $k == 0:
        out.append(groups)
print(" ".join(map(str, out)))
""",
    slow="""\
n, m = map(int, input().split())
label = list(range(n + 1))
groups = n
out = []
for i in range(m):
    u, v = map(int, input().split())
    a, b = label[u], label[v]
    if a != b:
        for town in range(1, n + 1):
            if label[town] == a:
                label[town] = b
        groups -= 1
    if (i + 1) % $k == 0:
        out.append(groups)
print(*out)
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
parent = list(range(n + 1))
groups = n
out = []
for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    if parent[u] != parent[v]:
        parent[u] = parent[v]
        groups -= 1
    if (i + 1) % $k == 0:
        out.append(groups)
print(" ".join(map(str, out)))
""",
    generate=generate,
    edge_cases=edge_cases,
)
