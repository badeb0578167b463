from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="record-days",
    title="Record days",
    difficulty="easy",
    statements=("""\
A day sets a record when its temperature is strictly higher than on every
earlier day (the first day always does). Count the record days.

Input: n, then the n temperatures.
Output: the number of record days.
Constraints: 1 <= n <= 100000, |t_i| <= 10^9.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
best = None
records = 0
for t in map(int, data[1:1 + n]):
    if best is None or t > best:
        best = t
        records += 1
print(records)
""",
    slow="""\
n = int(input())
t = list(map(int, input().split()))
print(sum(1 for i in range(n) if all(t[j] < t[i] for j in range(i))))
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
best = None
records = 0
for t in map(int, data[1:1 + n]):
    if best is None or t >= best:
        best = t
        records += 1
print(records)
""",
    # Rising temperatures with noise: many records, and the naive check scans far back.
    generate=lambda rng, n, knobs: f"{n}\n" + " ".join(
        str(i * 3 + rng.randint(-5, 5)) for i in range(n)) + "\n",
    edge_cases=("6\n3 1 4 4 5 2\n", "1\n-2\n", "3\n5 5 5\n"),
)
