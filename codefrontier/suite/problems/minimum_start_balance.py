from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    return f"{n}\n{line(ints(rng, n, -1000, 990))}\n"


FAMILY = Family(
    slug="minimum-start-balance",
    title="Never overdrawn",
    difficulty="easy",
    statements=("""\
An account sees n transactions in order (positive: deposit, negative:
withdrawal). Print the smallest non-negative starting balance that keeps the
balance at or above zero after every transaction.

Input: n, then the n amounts.
Output: the starting balance.
Constraints: 1 <= n <= 100000, |amount| <= 1000.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
balance = lowest = 0
for v in map(int, data[1:1 + n]):
    balance += v
    lowest = min(lowest, balance)
print(-lowest)
""",
    slow="""\
n = int(input())
a = list(map(int, input().split()))
need = 0
for i in range(n):
    total = 0
    for j in range(i + 1):
        total += a[j]
    need = max(need, -total)
print(need)
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(max(0, -sum(map(int, data[1:1 + n]))))
""",
    generate=generate,
    edge_cases=("4\n5 -7 3 -4\n", "1\n10\n", "3\n-1 -1 5\n"),
)
