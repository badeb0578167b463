from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the minimum balance the bank requires at all times
    return {"m": rng.randint(1, 5000)}


def generate(rng, n, knobs):
    n = max(n, 1)
    return f"{n}\n{line(ints(rng, n, -1000, 990))}\n"


FAMILY = Family(
    slug="minimum-start-balance",
    title="Never overdrawn",
    difficulty="easy",
    time_limit_s=3.0,  # the quadratic re-summing needs up to ~0.5 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
An account sees n transactions in order (positive: deposit, negative:
withdrawal). The bank requires a balance of at least $m at all times. Print the
smallest starting balance that keeps the balance at or above $m at the start and
after every transaction.

Input: n, then the n amounts.
Output: the starting balance.
Constraints: 1 <= n <= $max_n, |amount| <= 1000.""",
        """\
You open an account with some starting balance and then apply n amounts in
order, adding each one (a negative amount is a withdrawal). The balance must
never be below $m, neither at the start nor after any transaction. What is the
least starting balance that makes this possible?

Input: the first line holds n; the second line holds the n amounts.
Output: one integer, the least starting balance.
Constraints: 1 <= n <= $max_n, |amount| <= 1000.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
balance = lowest = 0
for v in map(int, data[1:1 + n]):
    balance += v
    lowest = min(lowest, balance)
print($m - lowest)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
need = $m
for i in range(n):
    total = 0
    for j in range(i + 1):
        total += a[j]
    need = max(need, $m - total)
print(need)
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(max($m, $m - sum(map(int, data[1:1 + n]))))
""",
    generate=generate,
    edge_cases=("4\n5 -7 3 -4\n", "1\n10\n", "3\n-1 -1 5\n"),
)
