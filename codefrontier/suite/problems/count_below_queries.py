from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    top = 10 * n
    return f"{n} {n}\n{line(ints(rng, n, 0, top))}\n{line(ints(rng, n, 0, top))}\n"


FAMILY = Family(
    slug="count-below-queries",
    title="How many are smaller",
    difficulty="easy",
    statements=("""\
Given n integers and q query values x, print for each query how many of the n
integers are strictly smaller than x.

Input: n and q; the n integers; the q query values.
Output: q answers on one line.
Constraints: 1 <= n, q <= 100000, 0 <= values <= 10^9.""",),
    efficient="""\
import sys
from bisect import bisect_left

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = sorted(map(int, data[2:2 + n]))
print(" ".join(str(bisect_left(a, int(x))) for x in data[2 + n:2 + n + q]))
""",
    slow="""\
n, q = map(int, input().split())
a = list(map(int, input().split()))
queries = list(map(int, input().split()))
answers = []
for x in queries:
    count = 0
    for v in a:
        if v < x:
            count += 1
    answers.append(count)
print(*answers)
""",
    buggy="""\
import sys
from bisect import bisect_right

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = sorted(map(int, data[2:2 + n]))
print(" ".join(str(bisect_right(a, int(x))) for x in data[2 + n:2 + n + q]))
""",
    generate=generate,
    edge_cases=("5 3\n1 4 4 2 8\n4 0 9\n", "1 1\n5\n5\n"),
)
