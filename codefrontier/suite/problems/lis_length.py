from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the least step d between consecutive chosen elements (d = 1: the classic LIS)
    return {"d": rng.randint(1, 60)}


def generate(rng, n, knobs):
    # values span about n/4 steps of d, so chains stay long (as for the classic LIS)
    return array_input(rng, n, 0, max(1, n // 4) * knobs["d"])


FAMILY = Family(
    slug="lis-length",
    title="Longest increasing subsequence",
    difficulty="medium",
    time_limit_s=3.0,  # the quadratic program needs up to 0.56 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
Pick a subsequence of an array (not necessarily contiguous) in which every
element is at least $d larger than the element picked before it. Print the
largest possible length of such a subsequence.

Input: n, then the n integers.
Output: the length.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
Given n integers, find the longest subsequence b_1, b_2, ..., b_k (elements kept
in their original order, not necessarily adjacent) with b_{i+1} >= b_i + $d for
every i. Print k.

Input: the first line holds n; the second line holds the n integers.
Output: k, the length of the longest such subsequence.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
A subsequence is called $d-increasing if each of its elements exceeds the
previous one by $d or more. Print the length of the longest $d-increasing
subsequence of the given array (a single element counts).

Input: n, then the n integers.
Output: the length.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
    ),
    efficient="""\
import sys
from bisect import bisect_right

data = sys.stdin.buffer.read().split()
n = int(data[0])
tails = []
for v in map(int, data[1:1 + n]):
    i = bisect_right(tails, v - $d)
    if i == len(tails):
        tails.append(v)
    elif v < tails[i]:
        tails[i] = v
print(len(tails))
""",
    slow=(
        # take or skip each element, a recursion without memo: it walks every chain
        SlowProgram("exponential", """\
import sys

sys.setrecursionlimit(10000)
n = int(input())
a = list(map(int, input().split()))


def longest(i, last):
    if i == n:
        return 0
    best = longest(i + 1, last)
    if last is None or a[i] >= last + $d:
        best = max(best, 1 + longest(i + 1, a[i]))
    return best


print(longest(0, None))
""", 3),
        SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
best = [1] * n
for i in range(n):
    top = a[i] - $d
    length = 1
    for j in range(i):
        if a[j] <= top and best[j] >= length:
            length = best[j] + 1
    best[i] = length
print(max(best))
""", 5),
    ),
    buggy="""\
import sys
from bisect import bisect_left

data = sys.stdin.buffer.read().split()
n = int(data[0])
tails = []
for v in map(int, data[1:1 + n]):
    i = bisect_left(tails, v - $d)
    if i == len(tails):
        tails.append(v)
    elif v < tails[i]:
        tails[i] = v
print(len(tails))
""",
    generate=generate,
    edge_cases=lambda knobs: (
        "8\n10 9 2 5 3 7 101 18\n", "1\n4\n", "5\n3 3 3 3 3\n",
        f"5\n0 {knobs['d']} {knobs['d'] - 1} {2 * knobs['d']} {3 * knobs['d'] - 1}\n"),
)
