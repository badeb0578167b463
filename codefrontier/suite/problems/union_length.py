from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # coordinates grow with n, so small tests stay small; the spacing grows with the
    # margin, so that widened segments stay as scattered (and as many) as before
    span = (1000 + 2 * knobs["d"]) * n
    rows = []
    for _ in range(n):
        start = rng.randint(0, span)
        rows.append(f"{start} {start + rng.randint(0, 2000)}")
    return f"{n}\n" + "\n".join(rows) + "\n"


def knobs(rng):
    # a safety margin: every segment is widened by d at both ends before measuring
    return {"d": rng.randint(1, 500)}


FAMILY = Family(
    slug="union-length",
    title="Length of a union of segments",
    difficulty="medium",
    knobs=knobs,
    statements=(
        """\
n segments [l_i, r_i] lie on a line. Each is first widened by $d at both ends,
to [l_i - $d, r_i + $d]. Print the total length covered by at least one of the
widened segments.

Input: n, then n lines "l r".
Output: the covered length.
Constraints: 1 <= n <= $max_n, 0 <= l_i <= r_i <= 2*10^9.""",
        """\
Workers will repair n stretches of a road; stretch i runs from l_i to r_i. A
safety zone extends every stretch by $d on each side, so the closed zone of
stretch i is [l_i - $d, r_i + $d]. How long is the part of the road that lies
in at least one zone?

Input: the first line holds n; each of the next n lines holds l_i and r_i.
Output: one integer, the total length.
Constraints: 1 <= n <= $max_n, 0 <= l_i <= r_i <= 2*10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
segments = sorted((int(data[1 + 2 * i]) - $d, int(data[2 + 2 * i]) + $d) for i in range(n))
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
    slow=(SlowProgram("quadratic", """\
n = int(input())
segments = [tuple(map(int, input().split())) for _ in range(n)]
merged = []
for l, r in segments:
    l, r = l - $d, r + $d
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
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
segments = sorted((int(data[1 + 2 * i]) - $d, int(data[2 + 2 * i]) + $d) for i in range(n))
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
