from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # d: a record must beat every earlier temperature by more than d degrees
    return {"d": rng.randint(1, 50)}


FAMILY = Family(
    slug="record-days",
    title="Record days",
    difficulty="easy",
    time_limit_s=1.5,  # centred between the naive check's times at 10^4 and 10^5 bytes
    knobs=knobs,
    statements=(
        """\
A day sets a record when its temperature is higher than on every earlier day
by more than $d degrees (the first day always does). Count the record days.

Input: n, then the n temperatures.
Output: the number of record days.
Constraints: 1 <= n <= $max_n, |t_i| <= 10^9.""",
        """\
Temperatures t_1..t_n were measured on n consecutive days. Day i is a record day
when t_i - t_j > $d for every earlier day j; day 1 is always a record day. How
many record days are there?

Input: the first line holds n; the second line holds the n temperatures.
Output: one number, the count of record days.
Constraints: 1 <= n <= $max_n, |t_i| <= 10^9.""",
        """\
Count the days whose temperature exceeds the highest temperature of all the
earlier days by more than $d (a difference of exactly $d is not enough). The
first day has no earlier days and always counts.

Input: n, then the n temperatures.
Output: the number of such days.
Constraints: 1 <= n <= $max_n, |t_i| <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
best = -10**10
records = 0
for t in map(int, data[1:1 + n]):
    if t > best + $d:
        records += 1
    best = max(best, t)
print(records)
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
t = list(map(int, input().split()))
print(sum(1 for i in range(n) if all(t[i] - t[j] > $d for j in range(i))))
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
best = None
records = 0
for t in map(int, data[1:1 + n]):
    if best is None or t > best + $d:
        best = t
        records += 1
print(records)
""",
    # Temperatures rising by about d + 1 a day, with noise: many records and many
    # near-misses, and the naive check scans far back.
    generate=lambda rng, n, knobs: f"{n}\n" + " ".join(
        str(i * (knobs["d"] + 1) + rng.randint(-5, 5)) for i in range(n)) + "\n",
    edge_cases=lambda k: (f"6\n3 1 {4 + k['d']} {4 + k['d']} {5 + 2 * k['d']} 2\n", "1\n-2\n",
                          "3\n5 5 5\n", f"3\n0 {k['d']} {k['d'] + 1}\n"),
)
