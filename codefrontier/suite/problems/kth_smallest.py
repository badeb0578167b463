from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # Small values in small tests (|a_i| <= 100 n^2, up to 10^9 from n = 3163 on), and
    # about one value in ten (at least one, from two values on) given the remainder of
    # another: ranking the distinct remainders only is then wrong.
    m, top = knobs["m"], min(10**9, 100 * n * n)
    a = ints(rng, n, -top, top)
    for _ in range(max(1, n // 10) if n > 1 else 0):
        i, j = rng.sample(range(n), 2)
        r = a[i] % m
        a[j] = r + m * rng.randint(-((top + r) // m), (top - r) // m)
    return f"{n} {n // 2 + knobs['base']}\n{line(a)}\n"


def knobs(rng):
    # the rank of the minimum (k counted from 0 or from 1), and the modulus m: values
    # are ranked by their remainder modulo m (large, so remainders rarely repeat)
    base, m = rng.choice((0, 1)), rng.randint(100_000, 999_999)
    return {"base": base, "m": m, "top": m - 1, "last": "n" if base else "n - 1"}


def edge_cases(knobs):
    b, m = knobs["base"], knobs["m"]
    return (f"5 {1 + b}\n3 1 2 {1 + m} 5\n", f"1 {b}\n9\n", f"4 {3 + b}\n2 {8 - m} 8 1\n")


FAMILY = Family(
    slug="kth-smallest",
    title="The k-th smallest",
    difficulty="easy",
    time_limit_s=1.0,
    knobs=knobs,
    statements=(
        """\
Replace each of n integers by its remainder modulo $m (a value from 0 to $top),
then print the k-th smallest remainder (k = $base is the minimum; equal
values count separately).

Input: n and k; then the n integers.
Output: the k-th smallest remainder.
Constraints: $base <= k <= $last, 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
Sort the remainders a_i mod $m (each between 0 and $top) of n integers in
non-decreasing order, keeping repeats, and number the sorted list from $base.
Print the entry with number k.

Input: the first line holds n and k; the second line holds the n integers.
Output: one integer, the remainder with rank k.
Constraints: 1 <= n <= $max_n, $base <= k <= $last, |a_i| <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
print(sorted(int(x) % $m for x in data[2:2 + n])[k - $base])
""",
    # selection sort, stopped once position k is filled (repeated a.remove(min(a)) runs
    # in C, too fast at 10^5 bytes for any limit of 0.5 s or more)
    slow=(SlowProgram("quadratic", """\
n, k = map(int, input().split())
a = [int(x) % $m for x in input().split()]
for i in range(k - $base + 1):
    smallest = i
    for j in range(i + 1, n):
        if a[j] < a[smallest]:
            smallest = j
    a[i], a[smallest] = a[smallest], a[i]
print(a[k - $base])
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), int(data[1])
values = sorted(set(int(x) % $m for x in data[2:2 + n]))
print(values[min(k - $base, len(values) - 1)])
""",
    generate=generate,
    edge_cases=edge_cases,
)
