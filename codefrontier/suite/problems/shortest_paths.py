from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # A chain 1 -> 2 -> ... -> n carries every shortest path; it is listed last edge
    # first, so a round of naive relaxation extends the known distances by one city.
    # Backward roads and costly forward shortcuts are interleaved at random: a
    # search that ignores weights takes the shortcuts (which cost more than the
    # chain they skip, toll included).
    chain = [f"{i} {i + 1} {rng.randint(1, 10)}" for i in range(1, n)]  # popped from the end
    extra = []
    for _ in range(n // 2):
        u, v = rng.randint(1, n), rng.randint(1, n)
        extra.append(f"{max(u, v)} {min(u, v)} {rng.randint(1, 100)}")
    for _ in range(n // 10):
        u = rng.randint(1, n)
        v = min(n, u + rng.randint(2, 10))
        extra.append(f"{u} {v} {(11 + knobs['toll']) * (v - u)}")
    edges = []
    while chain or extra:
        source = chain if chain and (not extra or rng.random() < 0.5) else extra
        edges.append(source.pop())
    return f"{n} {len(edges)}\n" + "\n".join(edges) + "\n"


def knobs(rng):
    # a toll: every road used costs this many extra minutes
    return {"toll": rng.randint(1, 60)}


FAMILY = Family(
    slug="shortest-paths",
    time_limit_s=1.5,
    title="Shortest paths from the capital",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
A directed graph has n cities and m roads; road i goes from u_i to v_i and takes
w_i minutes, plus $toll minutes spent at its toll gate. Print the shortest
travel time from city 1 to every city, or -1 for cities that cannot be reached.

Input: n and m; then m lines "u v w".
Output: n integers on one line.
Constraints: 1 <= n <= $max_n, 0 <= m <= 2n, 1 <= w <= 1000.""",
        """\
Every one-way road of the kingdom has a toll gate, and passing a gate costs
$toll minutes of waiting on top of the road's driving time. There are n cities
and m roads "u v w" (from u to v, w minutes of driving). For each city, print
the least total time to reach it from city 1 (the capital), or -1 if it is
unreachable.

Input: the first line has n and m; each of the next m lines has u, v and w.
Output: n integers on one line, city 1 first.
Constraints: 1 <= n <= $max_n, 0 <= m <= 2n, 1 <= w <= 1000.""",
    ),
    efficient="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
graph = [[] for _ in range(n + 1)]
for i in range(m):
    u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
    graph[u].append((v, w + $toll))
INF = float("inf")
dist = [INF] * (n + 1)
dist[1] = 0
heap = [(0, 1)]
while heap:
    d, u = heapq.heappop(heap)
    if d > dist[u]:
        continue
    for v, w in graph[u]:
        if d + w < dist[v]:
            dist[v] = d + w
            heapq.heappush(heap, (d + w, v))
print(" ".join(str(d) if d < INF else "-1" for d in dist[1:]))
""",
    slow=(
        # every simple path from city 1, by depth-first search (exponential in the
        # number of shortcuts: a path can skip the cities they jump over, then reach
        # them by a backward road)
        SlowProgram("exponential", """\
import sys

sys.setrecursionlimit(100000)
n, m = map(int, input().split())
graph = [[] for _ in range(n + 1)]
for _ in range(m):
    u, v, w = map(int, input().split())
    graph[u].append((v, w + $toll))
INF = float("inf")
best = [INF] * (n + 1)
on_path = [False] * (n + 1)


def walk(u, d):
    if d < best[u]:
        best[u] = d
    on_path[u] = True
    for v, w in graph[u]:
        if not on_path[v]:
            walk(v, d + w)
    on_path[u] = False


walk(1, 0)
print(*[b if b < INF else -1 for b in best[1:]])
""", 4),
        SlowProgram("quadratic", """\
n, m = map(int, input().split())
edges = []
for _ in range(m):
    u, v, w = map(int, input().split())
    edges.append((u, v, w + $toll))
INF = float("inf")
dist = [INF] * (n + 1)
dist[1] = 0
for _ in range(n - 1):
    changed = False
    for u, v, w in edges:
        if dist[u] + w < dist[v]:
            dist[v] = dist[u] + w
            changed = True
    if not changed:
        break
print(*[d if d < INF else -1 for d in dist[1:]])
""", 5),
    ),
    buggy="""\
import sys
from collections import deque

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
graph = [[] for _ in range(n + 1)]
for i in range(m):
    u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
    graph[u].append((v, w + $toll))
dist = [-1] * (n + 1)
dist[1] = 0
queue = deque([1])
while queue:
    u = queue.popleft()
    for v, w in graph[u]:
        if dist[v] == -1:
            dist[v] = dist[u] + w
            queue.append(v)
print(" ".join(map(str, dist[1:])))
""",
    generate=generate,
    edge_cases=("4 4\n1 2 5\n1 3 1\n3 2 2\n2 4 1\n", "3 1\n2 3 4\n", "1 0\n"),
)
