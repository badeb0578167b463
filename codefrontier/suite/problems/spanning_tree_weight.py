from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    n = max(n, 2)
    edges = [(rng.randint(1, i - 1), i) for i in range(2, n + 1)]  # connected
    edges += [(rng.randint(1, n), rng.randint(1, n)) for _ in range(n // 2)]
    rng.shuffle(edges)
    top = min(1000, 2 + n)
    shift = 1 - knobs["base"]
    return f"{n} {len(edges)}\n" + "".join(
        f"{a - shift} {b - shift} {rng.randint(1, top)}\n" for a, b in edges)


def edge_cases(knobs):
    shift = 1 - knobs["base"]
    cases = ((4, [(1, 2, 1), (2, 3, 2), (3, 4, 1), (1, 4, 5), (1, 3, 3)]),
             (2, [(1, 1, 1), (1, 2, 7)]))
    return tuple(f"{n} {len(rows)}\n" + "".join(f"{u - shift} {v - shift} {w}\n"
                                                for u, v, w in rows) for n, rows in cases)


def knobs(rng):
    # fee: a fixed installation fee paid for every cable laid; base: towns are
    # numbered from 0 or from 1
    return {"fee": rng.randint(1, 500), "base": rng.choice((0, 1))}


FAMILY = Family(
    slug="spanning-tree-weight",
    time_limit_s=1.0,
    title="Cheapest network",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
n towns, numbered from $base, and m possible cables "u v w" (cost w, either
direction; loops and repeated pairs may occur). Laying a cable also costs a
fixed installation fee of $fee on top of its cost w. The cables can connect all
towns. Print the least total cost that connects every town.

Input: n and m; then m lines "u v w".
Output: the least cost.
Constraints: 2 <= n <= $max_n, n - 1 <= m <= 2n, 1 <= w <= 1000.""",
        """\
Every town must be joined to every other, directly or through other towns, by
cables. There are n towns, numbered consecutively starting from $base, and m
candidate cables; candidate "u v w" links towns u and v and costs w, plus an
installation fee of $fee per cable that is actually laid. Loops and parallel
candidates may appear; using all candidates connects every town. What is the
minimum total cost?

Input: the first line has n and m; then m lines with u, v and w.
Output: one integer, the minimum cost.
Constraints: 2 <= n <= $max_n, n - 1 <= m <= 2n, 1 <= w <= 1000.""",
    ),
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
        total += w + $fee
print(total)
""",
    slow=(SlowProgram("quadratic", """\
n, m = map(int, input().split())
edges = [tuple(map(int, input().split())) for _ in range(m)]
in_tree = [False] * (n + 1)
in_tree[$base] = True
total = 0
for _ in range(n - 1):
    best = None
    for u, v, w in edges:
        if in_tree[u] != in_tree[v] and (best is None or w < best[2]):
            best = (u, v, w)
    in_tree[best[0]] = in_tree[best[1]] = True
    total += best[2] + $fee
print(total)
""", 5),),
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
print(sum(sorted(cheapest.values())[: n - 1]) + $fee * (n - 1))
""",
    generate=generate,
    edge_cases=edge_cases,
)
