from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # c: the factor in a_i > c * a_j
    return {"c": rng.randint(2, 20)}


FAMILY = Family(
    slug="reverse-pairs",
    time_limit_s=2.0,
    title="Important reverse pairs",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Count the pairs i < j with a_i > $c * a_j.

Input: n, then the n integers.
Output: the number of such pairs.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
A pair of positions i < j is important when the earlier value is strictly
greater than $c times the later one. How many important pairs does an array of
n integers have?

Input: the first line holds n; the second line holds the n integers.
Output: one number, the count.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
Given n integers, count the pairs (i, j) with i < j such that a_i exceeds
$c * a_j (strictly).

Input: n, then the n integers.
Output: the number of pairs.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
    ),
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
        while j < len(right) and v > $c * right[j]:
            j += 1
        count += j
    return sorted(left + right), count

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(solve(list(map(int, data[1:1 + n])))[1])
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
scaled = [$c * x for x in a]
count = 0
for i in range(n):
    x = a[i]
    for j in range(i + 1, n):
        if x > scaled[j]:
            count += 1
print(count)
""", 5),),
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
        while j < len(right) and v >= $c * right[j]:
            j += 1
        count += j
    return sorted(left + right), count

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(solve(list(map(int, data[1:1 + n])))[1])
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -max(3, n), max(3, n)),
    edge_cases=lambda k: ("5\n1 3 2 3 1\n", "1\n5\n", f"5\n2 {2 * k['c']} 3 5 2\n",
                          f"2\n{k['c']} 1\n", f"3\n{k['c'] + 1} 0 1\n"),
)
