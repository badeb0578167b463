from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    n, d = max(n, 1), knobs["d"]
    top = 10 * n
    return f"{n} {n}\n{line(ints(rng, n, 0, top))}\n{line(ints(rng, n, d, top + d))}\n"


def knobs(rng):
    # the gap: a value v counts for query x when v + d <= x
    return {"d": rng.randint(1, 99)}


def edge_cases(knobs):
    d = knobs["d"]
    return (f"5 3\n1 4 4 2 8\n{4 + d} {d} {9 + d}\n", f"1 1\n5\n{5 + d}\n", "1 1\n0\n0\n")


FAMILY = Family(
    slug="count-below-queries",
    title="How many are smaller",
    difficulty="easy",
    time_limit_s=1.5,
    knobs=knobs,
    statements=(
        """\
Given n integers and q query values x, print for each query how many of the n
integers v satisfy v + $d <= x (that is, v is smaller than x by at least $d).

Input: n and q; the n integers; the q query values.
Output: q answers on one line.
Constraints: 1 <= n, q <= $max_n, 0 <= values <= 10^9.""",
        """\
A value v is at least $d below x when v <= x - $d. You get n integers and then
q queries; for each query x, count the integers that are at least $d below x.

Input: the first line holds n and q; the second the n integers; the third the q
query values.
Output: the q counts on one line, separated by spaces.
Constraints: 1 <= n, q <= $max_n, 0 <= values <= 10^9.""",
        """\
For each of q query values x, report the number of array elements v with
v <= x - $d. The array holds n integers.

Input: n and q; the n integers; the q query values.
Output: q answers on one line.
Constraints: 1 <= n, q <= $max_n, 0 <= values <= 10^9.""",
    ),
    efficient="""\
import sys
from bisect import bisect_right

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = sorted(map(int, data[2:2 + n]))
print(" ".join(str(bisect_right(a, int(x) - $d)) for x in data[2 + n:2 + n + q]))
""",
    slow=(SlowProgram("quadratic", """\
n, q = map(int, input().split())
a = list(map(int, input().split()))
queries = list(map(int, input().split()))
answers = []
for x in queries:
    count = 0
    for v in a:
        if v + $d <= x:
            count += 1
    answers.append(count)
print(*answers)
""", 5),),
    buggy="""\
import sys
from bisect import bisect_left

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = sorted(map(int, data[2:2 + n]))
print(" ".join(str(bisect_left(a, int(x) - $d)) for x in data[2 + n:2 + n + q]))
""",
    generate=generate,
    edge_cases=edge_cases,
)
