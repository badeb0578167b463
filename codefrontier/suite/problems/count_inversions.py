from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # which pairs count (a_i > a_j, or a_i < a_j: the efficient program negates the
    # values), and the modulus of the printed count
    op = rng.choice((">", "<"))
    return {"op": op, "sign": "" if op == ">" else "-", "m": rng.randint(1000, 999_999)}


FAMILY = Family(
    slug="count-inversions",
    title="Inversions",
    difficulty="medium",
    time_limit_s=2.0,  # the pair loop needs up to 0.3 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
Count the pairs i < j with a_i $op a_j, and print the count modulo $m.

Input: n, then the n integers.
Output: the number of such pairs, modulo $m.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
You are given a sequence a_1..a_n. A pair of positions i < j is special when
a_i $op a_j. How many special pairs are there? The count can be large: print its
remainder modulo $m.

Input: the first line holds n; the second line holds the n integers.
Output: one integer, the number of special pairs modulo $m.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
Print (the number of index pairs i < j such that a_i $op a_j) mod $m, for an
array of n integers (equal values never form such a pair).

Input: n, then the n integers.
Output: the count modulo $m.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
    ),
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
print(sort_count([${sign}int(x) for x in data[1:1 + n]])[1] % $m)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
print(sum(1 for i in range(n) for j in range(i + 1, n) if a[i] $op a[j]) % $m)
""", 5),),
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
print(sort_count([${sign}int(x) for x in data[1:1 + n]])[1] % $m)
""",
    generate=lambda rng, n, knobs: array_input(rng, n, 0, max(1, n // 2)),
    edge_cases=("5\n2 4 1 3 5\n", "1\n1\n", "4\n2 2 2 1\n", "4\n1 2 2 2\n"),
)
