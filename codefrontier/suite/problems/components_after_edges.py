from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    m = n
    rows = [f"{rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(m)]
    return f"{n} {m}\n" + "\n".join(rows) + "\n"


def knobs(rng):
    # the price of one power station: the answer is the number of groups times c
    return {"c": rng.randint(2, 99)}


FAMILY = Family(
    slug="components-after-edges",
    title="Components as roads open",
    difficulty="medium",
    time_limit_s=2.0,  # the relabelling program needs up to 0.3 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
n towns start disconnected. Roads open one at a time, each joining two towns.
Every connected group of towns needs its own power station, which costs $c.
After each road opens, print the total cost of the stations needed.

Input: n and m; then m lines "u v" (towns are numbered 1 to n).
Output: m integers on one line.
Constraints: 1 <= n, m <= $max_n.""",
        """\
There are n towns (1..n) and no roads. Then m roads are built in the given
order; road i joins towns u_i and v_i. After each road, report $c times the
number of connected groups the towns form at that moment.

Input: the first line holds n and m; each of the next m lines holds "u v".
Output: the m reports on one line, separated by spaces.
Constraints: 1 <= n, m <= $max_n.""",
        """\
Each group of towns linked by roads (directly or through other towns) pays a
fee of $c. Initially none of the n towns are linked; m roads then open one after
another. Print the total fee after every road opens.

Input: n and m; then m lines "u v", the towns a road joins (numbered from 1).
Output: m integers on one line.
Constraints: 1 <= n, m <= $max_n.""",
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
    out.append(groups * $c)
print(" ".join(map(str, out)))
""",
    slow=(SlowProgram("quadratic", """\
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
    out.append(groups * $c)
print(*out)
""", 5),),
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
    out.append(groups * $c)
print(" ".join(map(str, out)))
""",
    generate=generate,
    edge_cases=("4 3\n1 2\n3 4\n2 1\n", "3 2\n1 1\n2 3\n", "5 4\n1 2\n2 3\n3 1\n4 5\n"),
)
