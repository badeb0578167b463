from codefrontier.suite.gen import array_input
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="pair-sum-count",
    title="Pairs with a given sum",
    difficulty="easy",
    statements=("""\
Given n integers a_1..a_n and a target t, count the pairs of indices i < j with
a_i + a_j = t.

Input: the first line holds n and t; the second line holds the n integers.
Output: the number of pairs.
Constraints: 1 <= n <= 100000, |a_i| <= 10^6, |t| <= 2*10^6.""",),
    efficient="""\
import sys

def main():
    data = sys.stdin.buffer.read().split()
    n, t = int(data[0]), int(data[1])
    seen = {}
    pairs = 0
    for token in data[2:2 + n]:
        v = int(token)
        pairs += seen.get(t - v, 0)
        seen[v] = seen.get(v, 0) + 1
    print(pairs)

main()
""",
    slow="""\
n, t = map(int, input().split())
a = list(map(int, input().split()))
count = 0
for i in range(n):
    for j in range(i + 1, n):
        if a[i] + a[j] == t:
            count += 1
print(count)
""",
    buggy="""\
import sys
data = sys.stdin.read().split()
n, t = int(data[0]), int(data[1])
values = set(map(int, data[2:2 + n]))
print(sum(1 for v in values if t - v in values and v < t - v))
""",
    generate=lambda rng, n, knobs: array_input(rng, n, -50, 50, header=str(rng.randint(-20, 20))),
    edge_cases=("4 6\n1 5 3 3\n", "1 0\n0\n", "5 0\n0 0 0 0 0\n"),
)
