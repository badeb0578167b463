from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    n = max(n, 1)
    values = list(range(1, n + 1))
    values.remove(rng.randint((3 * n + 3) // 4, n))  # late, so a scan from 1 goes far
    rng.shuffle(values)
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


FAMILY = Family(
    slug="missing-number",
    title="The missing number",
    difficulty="easy",
    statements=("""\
The numbers 1..n were written down in some order, but one of them is missing.
Print the missing one.

Input: n; then n - 1 distinct integers from 1..n (the line is empty when n = 1).
Output: the missing number.
Constraints: 1 <= n <= 200000.""",),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(n * (n + 1) // 2 - sum(map(int, data[1:])))
""",
    slow="""\
import sys

data = sys.stdin.read().split()
n = int(data[0])
present = [int(x) for x in data[1:]]
for k in range(1, n + 1):
    if k not in present:
        print(k)
        break
""",
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
values = sorted(map(int, data[1:]))
for i, v in enumerate(values, start=1):
    if v != i:
        print(i)
        break
else:
    print(n - 1 if values else 1)
""",
    generate=generate,
    edge_cases=("5\n3 1 5 2\n", "1\n\n", "2\n1\n"),
)
