from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    position = {v: i for i, v in enumerate(order)}
    edges = set()
    for _ in range(n):
        u, v = rng.randint(1, n), rng.randint(1, n)
        if u != v:
            edges.add((u, v) if position[u] < position[v] else (v, u))
    rows = [f"{u} {v}" for u, v in sorted(edges)]
    rng.shuffle(rows)
    return f"{n} {len(rows)}\n" + "".join(row + "\n" for row in rows)


FAMILY = Family(
    slug="topological-order",
    title="Smallest course order",
    difficulty="medium",
    statements=("""\
n courses are numbered 1..n; a line "u v" says course u must come before
course v. The prerequisites have no cycle. Print the order of all courses that
respects them and is lexicographically smallest.

Input: n and m; then m lines "u v".
Output: n course numbers on one line.
Constraints: 1 <= n <= 100000, 0 <= m <= 100000.""",),
    efficient="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
after = [[] for _ in range(n + 1)]
needs = [0] * (n + 1)
for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    after[u].append(v)
    needs[v] += 1
ready = [v for v in range(1, n + 1) if needs[v] == 0]
heapq.heapify(ready)
order = []
while ready:
    u = heapq.heappop(ready)
    order.append(u)
    for v in after[u]:
        needs[v] -= 1
        if needs[v] == 0:
            heapq.heappush(ready, v)
print(" ".join(map(str, order)))
""",
    slow="""\
n, m = map(int, input().split())
edges = [tuple(map(int, input().split())) for _ in range(m)]
needs = [0] * (n + 1)
for u, v in edges:
    needs[v] += 1
done = [False] * (n + 1)
order = []
for _ in range(n):
    u = next(v for v in range(1, n + 1) if not done[v] and needs[v] == 0)
    done[u] = True
    order.append(u)
    for a, b in edges:
        if a == u:
            needs[b] -= 1
print(*order)
""",
    buggy="""\
import sys
from collections import deque

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
after = [[] for _ in range(n + 1)]
needs = [0] * (n + 1)
for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    after[u].append(v)
    needs[v] += 1
ready = deque(v for v in range(1, n + 1) if needs[v] == 0)
order = []
while ready:
    u = ready.popleft()
    order.append(u)
    for v in after[u]:
        needs[v] -= 1
        if needs[v] == 0:
            ready.append(v)
print(" ".join(map(str, order)))
""",
    generate=generate,
    edge_cases=("4 3\n3 1\n3 2\n2 1\n", "3 0\n", "5 4\n5 4\n4 3\n3 2\n2 1\n"),
)
