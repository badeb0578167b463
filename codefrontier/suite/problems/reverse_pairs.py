from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="reverse-pairs",
    title="Important reverse pairs",
    difficulty="hard",
    statements=("""\
Count the pairs i < j with a_i > 2 * a_j.

Input: n, then the n integers.
Output: the number of such pairs.
Constraints: 1 <= n <= 100000, |a_i| <= 10^9.""",),
    efficient="""\
import sys
from bisect import bisect_right

def solve(a):
    if len(a) <= 1:
        return a, 0
    middle = len(a) // 2
    left, x = solve(a[:middle])
    right, y = solve(a[middle:])
    count = x + y
    j = 0
    for v in left:
        while j < len(right) and v > 2 * right[j]:
            j += 1
        count += j
    return sorted(left + right), count

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(solve(list(map(int, data[1:1 + n])))[1])
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
count = 0
for i in range(n):
    for j in range(i + 1, n):
        if a[i] > 2 * a[j]:
            count += 1
print(count)
""",
    buggy="""\
import sys

def solve(a):
    if len(a) <= 1:
        return a, 0
    middle = len(a) // 2
    left, x = solve(a[:middle])
    right, y = solve(a[middle:])
    count = x + y
    j = 0
    for v in left:
        while j < len(right) and v >= 2 * right[j]:
            j += 1
        count += j
    return sorted(left + right), count

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(solve(list(map(int, data[1:1 + n])))[1])
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -max(3, n), max(3, n)),
    edge_cases=("5\n1 3 2 3 1\n", "1\n5\n", "5\n2 4 3 5 1\n", "2\n2 1\n"),
)
