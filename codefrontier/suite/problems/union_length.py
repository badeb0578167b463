from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    span = 1000 * n  # coordinates grow with n, so small tests stay small
    rows = []
    for _ in range(n):
        start = rng.randint(0, span)
        rows.append(f"{start} {start + rng.randint(0, 2000)}")
    return f"{n}\n" + "\n".join(rows) + "\n"


FAMILY = Family(
    slug="union-length",
    title="Length of a union of segments",
    difficulty="medium",
    statements=("""\
n segments [l_i, r_i] lie on a line. Print the total length covered by at least
one of them.

Input: n, then n lines "l r".
Output: the covered length.
Constraints: 1 <= n <= 100000, 0 <= l_i <= r_i <= 2*10^9.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
segments = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
total = 0
current_l, current_r = segments[0]
for l, r in segments[1:]:
    if l > current_r:
        total += current_r - current_l
        current_l, current_r = l, r
    else:
        current_r = max(current_r, r)
total += current_r - current_l
print(total)
""",
    slow="""\
n = int(input())
segments = [tuple(map(int, input().split())) for _ in range(n)]
merged = []
for l, r in segments:
    # fold the new segment into every overlapping one, keeping the list disjoint
    kept = []
    for a, b in merged:
        if b < l or r < a:
            kept.append((a, b))
        else:
            l, r = min(l, a), max(r, b)
    kept.append((l, r))
    merged = kept
print(sum(b - a for a, b in merged))
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
segments = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
total = 0
current_l, current_r = segments[0]
for l, r in segments[1:]:
    if l > current_r:
        total += current_r - current_l
        current_l, current_r = l, r
    else:
        current_r = r
total += current_r - current_l
print(total)
""",
    generate=generate,
    edge_cases=("3\n1 3\n2 6\n8 10\n", "1\n5 5\n", "2\n0 10\n2 3\n"),
)
