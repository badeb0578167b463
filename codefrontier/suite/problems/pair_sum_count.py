from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # values around t / 2 (closer on small inputs), so that many pairs hit the target
    spread = max(2, min(50, n // 2))
    return array_input(rng, n, knobs["t"] // 2 - spread, knobs["t"] // 2 + spread)


def knobs(rng):
    # t: the target sum, a constant of the task (no longer read from the input)
    return {"t": rng.randint(-1000, 1000)}


FAMILY = Family(
    slug="pair-sum-count",
    title="Pairs with a given sum",
    difficulty="easy",
    time_limit_s=1.5,  # centred between the double loop's times at 10^4 and 10^5 bytes
    knobs=knobs,
    statements=(
        """\
Given n integers a_1..a_n, count the pairs of indices i < j with
a_i + a_j = $t.

Input: the first line holds n; the second line holds the n integers.
Output: the number of pairs.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^6.""",
        """\
How many pairs of positions i < j are there whose two values add up to exactly
$t? Pairs at different positions count separately even when their values are
equal.

Input: n, then the n integers.
Output: one number, the count of such pairs.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^6.""",
        """\
Count the unordered pairs of distinct elements of an array of n integers whose
sum equals $t (two elements are distinct when their positions differ).

Input: n on the first line, the n integers on the second line.
Output: the number of pairs.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^6.""",
    ),
    efficient="""\
import sys

def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    seen = {}
    pairs = 0
    for token in data[1:1 + n]:
        v = int(token)
        pairs += seen.get($t - v, 0)
        seen[v] = seen.get(v, 0) + 1
    print(pairs)

main()
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
count = 0
for i in range(n):
    need = $t - a[i]
    for x in a[i + 1:]:
        if x == need:
            count += 1
print(count)
""", 5),),
    buggy="""\
import sys
data = sys.stdin.read().split()
n = int(data[0])
values = set(map(int, data[1:1 + n]))
print(sum(1 for v in values if $t - v in values and v < $t - v))
""",
    generate=generate,
    edge_cases=lambda k: (f"4\n1 {k['t'] - 1} {k['t'] - 3} 3\n", "1\n0\n",
                          "5\n" + " ".join([str(k["t"] // 2)] * 5) + "\n"),
)
