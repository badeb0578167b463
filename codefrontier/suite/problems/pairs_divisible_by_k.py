from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # a few multiples of k, even in the smallest tests: an element that pairs with
    # itself (a_i + a_i divisible by k) reveals a count that includes i = j
    values = ints(rng, n, 0, 10**6)
    for _ in range(max(1, n // 10)):
        values[rng.randrange(n)] = knobs["k"] * rng.randint(0, 10**6 // knobs["k"])
    return f"{n}\n{line(values)}\n"


def knobs(rng):
    # k: the divisor, a constant of the task (no longer read from the input)
    return {"k": rng.randint(2, 1000)}


FAMILY = Family(
    slug="pairs-divisible-by-k",
    title="Pairs with a sum divisible by k",
    difficulty="medium",
    time_limit_s=1.0,  # the pair loop needs up to 0.13 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
Count the pairs i < j for which a_i + a_j is divisible by $k.

Input: n; then the n integers.
Output: the number of pairs.
Constraints: 1 <= n <= $max_n, 0 <= a_i <= 10^9.""",
        """\
You are given n non-negative integers. How many pairs of positions i < j have a
sum a_i + a_j that is a multiple of $k?

Input: the first line holds n; the second line holds the n integers.
Output: one number, the count of such pairs.
Constraints: 1 <= n <= $max_n, 0 <= a_i <= 10^9.""",
        """\
A pair of elements at positions i < j is good when (a_i + a_j) mod $k = 0.
Count the good pairs of an array of n integers.

Input: n, then the n integers.
Output: the number of good pairs.
Constraints: 1 <= n <= $max_n, 0 <= a_i <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), $k
seen = [0] * k
pairs = 0
for v in map(int, data[1:1 + n]):
    r = v % k
    pairs += seen[(k - r) % k]
    seen[r] += 1
print(pairs)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
print(sum(1 for i in range(n) for j in range(i + 1, n) if (a[i] + a[j]) % $k == 0))
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n, k = int(data[0]), $k
seen = [0] * k
pairs = 0
for v in map(int, data[1:1 + n]):
    r = v % k
    seen[r] += 1
    pairs += seen[(k - r) % k]
print(pairs)
""",
    generate=generate,
    edge_cases=lambda knobs: ("5\n1 2 3 4 5\n", "1\n7\n", f"4\n{knobs['k']} 1 {knobs['k'] - 1} 0\n"),
)
