from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the points earned for every node a route visits (edges earn their weight)
    return {"r": rng.randint(1, 99)}


def generate(rng, n, knobs):
    n = max(n, 1)
    edges = [(i, i + 1) for i in range(1, n)]  # a long chain keeps paths long
    edges += [(a, b) for a, b in ((rng.randint(1, n), rng.randint(1, n)) for _ in range(n // 2))
              if a < b]
    rng.shuffle(edges)
    label = [0, *rng.sample(range(1, n + 1), n)]  # node numbers in no topological order
    return f"{n} {len(edges)}\n" + "".join(f"{label[a]} {label[b]} {rng.randint(1, 9)}\n"
                                         for a, b in edges)


FAMILY = Family(
    slug="longest-path-dag",
    time_limit_s=1.5,
    title="Longest route in a DAG",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
A directed acyclic graph has n nodes and m weighted edges "u v w". A route
follows edges; it earns $r points for every node it visits and w points for
every edge it uses. Print the largest number of points a route can earn (a
route may be a single node).

Input: n and m; then m lines "u v w".
Output: the largest number of points.
Constraints: 1 <= n <= $max_n, 0 <= m <= 2n, 1 <= w <= 9.""",
        """\
You are given a DAG with nodes 1..n and m directed edges, each "u v w" with a
weight w. The value of a path is the sum of the weights of its edges plus $r
for each of its nodes, so a path of one node is worth $r. Print the largest
value of a path.

Input: the first line holds n and m; each of the next m lines holds u, v, w.
Output: the largest path value.
Constraints: 1 <= n <= $max_n, 0 <= m <= 2n, 1 <= w <= 9.""",
    ),
    efficient="""\
import sys
from collections import deque

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
out = [[] for _ in range(n + 1)]
indegree = [0] * (n + 1)
for i in range(m):
    u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
    out[u].append((v, w))
    indegree[v] += 1
best = [$r] * (n + 1)
queue = deque(v for v in range(1, n + 1) if indegree[v] == 0)
while queue:
    u = queue.popleft()
    for v, w in out[u]:
        best[v] = max(best[v], best[u] + w + $r)
        indegree[v] -= 1
        if indegree[v] == 0:
            queue.append(v)
print(max(best[1:]))
""",
    slow=(SlowProgram("quadratic", """\
n, m = map(int, input().split())
edges = [tuple(map(int, input().split())) for _ in range(m)]
best = [$r] * (n + 1)
changed = True
while changed:
    changed = False
    for u, v, w in edges:
        if best[u] + w + $r > best[v]:
            best[v] = best[u] + w + $r
            changed = True
print(max(best[1:]))
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
best = [$r] * (n + 1)
edges = sorted((int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])) for i in range(m))
for u, v, w in edges:
    best[v] = max(best[v], best[u] + w + $r)
print(max(best[1:]))
""",
    generate=generate,
    edge_cases=("4 4\n1 2 3\n2 3 4\n1 3 5\n3 4 1\n", "1 0\n", "3 2\n3 2 5\n2 1 5\n"),
)
