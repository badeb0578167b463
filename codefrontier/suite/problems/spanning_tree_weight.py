from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 2)
    edges = [(rng.randint(1, i - 1), i) for i in range(2, n + 1)]  # connected
    edges += [(rng.randint(1, n), rng.randint(1, n)) for _ in range(n // 2)]
    rng.shuffle(edges)
    top = min(1000, 2 + n)
    return f"{n} {len(edges)}\n" + "".join(f"{a} {b} {rng.randint(1, top)}\n" for a, b in edges)


FAMILY = Family(
    slug="spanning-tree-weight",
    title="Cheapest network",
    difficulty="hard",
    statements=("""\
n towns and m possible cables "u v w" (cost w, either direction; loops and
repeated pairs may occur). The cables can connect all towns. Print the least
total cost that connects every town.

Input: n and m; then m lines "u v w".
Output: the least cost.
Constraints: 2 <= n <= 100000, n - 1 <= m <= 200000, 1 <= w <= 1000.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
edges = sorted(
    (int(data[4 + 3 * i]), int(data[2 + 3 * i]), int(data[3 + 3 * i])) for i in range(m))
parent = list(range(n + 1))

def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

total = 0
for w, u, v in edges:
    a, b = find(u), find(v)
    if a != b:
        parent[a] = b
        total += w
print(total)
""",
    slow="""\
n, m = map(int, input().split())
edges = [tuple(map(int, input().split())) for _ in range(m)]
in_tree = [False] * (n + 1)
in_tree[1] = True
total = 0
for _ in range(n - 1):
    best = None
    for u, v, w in edges:
        if in_tree[u] != in_tree[v] and (best is None or w < best[2]):
            best = (u, v, w)
    in_tree[best[0]] = in_tree[best[1]] = True
    total += best[2]
print(total)
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
cheapest = {}
for i in range(m):
    u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
    for town in (u, v):
        if u != v:
            cheapest[town] = min(cheapest.get(town, w), w)
print(sum(sorted(cheapest.values())[: n - 1]))
""",
    generate=generate,
    edge_cases=("4 5\n1 2 1\n2 3 2\n3 4 1\n1 4 5\n1 3 3\n", "2 2\n1 1 1\n1 2 7\n"),
)
