from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    n = max(n, 1)
    first = knobs["first"]
    order = list(range(first, n + first))
    rng.shuffle(order)
    position = {v: i for i, v in enumerate(order)}
    edges = set()
    for _ in range(n):
        u, v = rng.randint(first, n - 1 + first), rng.randint(first, n - 1 + first)
        if u != v:
            edges.add((u, v) if position[u] < position[v] else (v, u))
    rows = [f"{u} {v}" for u, v in sorted(edges)]
    rng.shuffle(rows)
    return f"{n} {len(rows)}\n" + "".join(row + "\n" for row in rows)


def edge_cases(knobs):
    cases = ((4, [(3, 1), (3, 2), (2, 1)]), (3, []), (5, [(5, 4), (4, 3), (3, 2), (2, 1)]))
    shift = knobs["first"] - 1
    return tuple(f"{n} {len(rows)}\n" + "".join(f"{u + shift} {v + shift}\n" for u, v in rows)
                 for n, rows in cases)


def knobs(rng):
    # the number of the first course (0, 1, or a larger code): first .. first + n - 1
    return {"first": rng.choice((0, 1, rng.randint(2, 1000)))}


FAMILY = Family(
    slug="topological-order",
    time_limit_s=3.0,  # the quadratic program needs up to 0.4 s below 10^5 bytes
    title="Smallest course order",
    difficulty="medium",
    knobs=knobs,
    statements=(
        """\
n courses are numbered consecutively starting from $first; a line "u v" says
course u must come before course v. The prerequisites have no cycle. Print the
order of all courses that respects them and is lexicographically smallest
(compare two orders at the first position where they differ: the smaller
number wins).

Input: n and m; then m lines "u v".
Output: n course numbers on one line.
Constraints: 1 <= n <= $max_n, 0 <= m <= $max_n.""",
        """\
A student must take n courses, with consecutive numbers starting at $first.
Each of m rules "u v" requires course u to be taken before course v; the rules
contain no cycle. Among all valid orders, print the one that is smallest
lexicographically (at the first position where two orders differ, the one with
the smaller course number there is smaller).

Input: the first line has n and m; each of the next m lines has u and v.
Output: the n course numbers in order, on one line.
Constraints: 1 <= n <= $max_n, 0 <= m <= $max_n.""",
    ),
    efficient="""\
import sys
import heapq

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
after = [[] for _ in range(n + $first)]
needs = [0] * (n + $first)
for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    after[u].append(v)
    needs[v] += 1
ready = [v for v in range($first, n + $first) if needs[v] == 0]
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
    slow=(
        # every order of the courses, in turn: the smallest one that keeps every rule
        SlowProgram("exponential", """\
from itertools import permutations

n, m = map(int, input().split())
edges = [tuple(map(int, input().split())) for _ in range(m)]
best = None
for order in permutations(range($first, n + $first)):
    position = {course: i for i, course in enumerate(order)}
    if all(position[u] < position[v] for u, v in edges) and (best is None or order < best):
        best = order
print(*best)
""", 2),
        SlowProgram("quadratic", """\
n, m = map(int, input().split())
edges = [tuple(map(int, input().split())) for _ in range(m)]
needs = [0] * (n + $first)
for u, v in edges:
    needs[v] += 1
done = [False] * (n + $first)
order = []
for _ in range(n):
    u = next(v for v in range($first, n + $first) if not done[v] and needs[v] == 0)
    done[u] = True
    order.append(u)
    for a, b in edges:
        if a == u:
            needs[b] -= 1
print(*order)
""", 5),
    ),
    buggy="""\
import sys
from collections import deque

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
after = [[] for _ in range(n + $first)]
needs = [0] * (n + $first)
for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    after[u].append(v)
    needs[v] += 1
ready = deque(v for v in range($first, n + $first) if needs[v] == 0)
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
    edge_cases=edge_cases,
)
