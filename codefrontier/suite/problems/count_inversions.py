from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="count-inversions",
    title="Inversions",
    difficulty="medium",
    statements=("""\
Count the pairs i < j with a_i > a_j.

Input: n, then the n integers.
Output: the number of inversions.
Constraints: 1 <= n <= 100000, |a_i| <= 10^9.""",),
    efficient="""\
import sys

def sort_count(a):
    if len(a) <= 1:
        return a, 0
    middle = len(a) // 2
    left, x = sort_count(a[:middle])
    right, y = sort_count(a[middle:])
    merged, count, i, j = [], x + y, 0, 0
    while i < len(left) and j < len(right):
        if right[j] < left[i]:
            merged.append(right[j])
            count += len(left) - i
            j += 1
        else:
            merged.append(left[i])
            i += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged, count

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(sort_count(list(map(int, data[1:1 + n])))[1])
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
print(sum(1 for i in range(n) for j in range(i + 1, n) if a[i] > a[j]))
""",
    buggy="""\
import sys

def sort_count(a):
    if len(a) <= 1:
        return a, 0
    middle = len(a) // 2
    left, x = sort_count(a[:middle])
    right, y = sort_count(a[middle:])
    merged, count, i, j = [], x + y, 0, 0
    while i < len(left) and j < len(right):
        if right[j] <= left[i]:
            merged.append(right[j])
            count += len(left) - i
            j += 1
        else:
            merged.append(left[i])
            i += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged, count

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(sort_count(list(map(int, data[1:1 + n])))[1])
""",
    generate=lambda rng, n, knobs: array_input(rng, n, 0, max(1, n // 2)),
    edge_cases=("5\n2 4 1 3 5\n", "1\n1\n", "4\n2 2 2 1\n"),
)
