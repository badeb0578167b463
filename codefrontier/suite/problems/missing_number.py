from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the first number of the range a..a+n-1 that was written down
    return {"a": rng.randint(0, 1000)}


def generate(rng, n, knobs):
    n, a = max(n, 1), knobs["a"]
    values = list(range(a, a + n))
    values.remove(a - 1 + rng.randint((3 * n + 3) // 4, n))  # late, so a scan from a goes far
    rng.shuffle(values)
    return f"{n}\n" + " ".join(map(str, values)) + "\n"


def edge_cases(knobs):
    a = knobs["a"]
    return (f"5\n{a + 2} {a} {a + 4} {a + 1}\n", "1\n\n", f"2\n{a}\n", f"3\n{a + 2} {a + 1}\n")


FAMILY = Family(
    slug="missing-number",
    title="The missing number",
    difficulty="easy",
    # 0.25 s: `k not in present` scans at C speed; only near 0.25 s does its quadratic
    # time stay under a third of the limit at 10^4 bytes and exceed three limits at 10^5
    time_limit_s=0.25,
    knobs=knobs,
    statements=(
        """\
The n consecutive numbers $a, ${a} + 1, ..., ${a} + n - 1 were written down in some
order, but one of them is missing. Print the missing one.

Input: n; then n - 1 distinct integers from $a..${a}+n-1 (the line is empty when
n = 1).
Output: the missing number.
Constraints: 1 <= n <= $max_n.""",
        """\
Someone listed every integer from $a up to ${a} + n - 1 in an arbitrary order and
forgot exactly one of them. Given n and the n - 1 listed numbers, print the
forgotten number.

Input: the first line holds n; the second holds the n - 1 numbers (it is empty
when n = 1).
Output: the forgotten number.
Constraints: 1 <= n <= $max_n.""",
        """\
Exactly one number of the range from $a to ${a} + n - 1 (inclusive) is absent
from the given list of n - 1 distinct numbers of that range. Print it.

Input: n, then the n - 1 numbers (none when n = 1).
Output: the absent number.
Constraints: 1 <= n <= $max_n.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(n * (2 * $a + n - 1) // 2 - sum(map(int, data[1:])))
""",
    slow=(SlowProgram("quadratic", """\
import sys

data = sys.stdin.read().split()
n = int(data[0])
present = [int(x) for x in data[1:]]
for k in range($a, $a + n):
    if k not in present:
        print(k)
        break
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
values = sorted(map(int, data[1:]))
for i, v in enumerate(values, start=$a):
    if v != i:
        print(i)
        break
else:
    print($a + n - 2 if values else $a)
""",
    generate=generate,
    edge_cases=edge_cases,
)
