from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # none: what to print for a position with no greater value to its right
    return {"none": rng.randint(-1000, -1)}


FAMILY = Family(
    slug="next-greater",
    title="Next greater element",
    difficulty="medium",
    time_limit_s=2.0,  # the forward scan needs up to 0.26 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
For each position i of an array, print the first value to the right of i that
is strictly greater than a_i, or $none if there is none.

Input: n, then the n integers.
Output: n integers on one line.
Constraints: 1 <= n <= $max_n, 0 <= a_i <= 10^9.""",
        """\
Given n non-negative integers, find for every element the nearest element after
it whose value is strictly larger, and print that value. Print $none for an
element that has no larger element after it.

Input: the first line holds n; the second line holds the n integers.
Output: the n answers on one line, separated by spaces.
Constraints: 1 <= n <= $max_n, 0 <= a_i <= 10^9.""",
        """\
Scan an array from left to right. For each a_i, output the value of the first
later element that is greater than a_i (equal does not count); output $none when
no later element is greater.

Input: n, then the n integers.
Output: n integers on one line.
Constraints: 1 <= n <= $max_n, 0 <= a_i <= 10^9.""",
    ),
    efficient="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
answer = [$none] * n
stack = []
for i, v in enumerate(a):
    while stack and a[stack[-1]] < v:
        answer[stack.pop()] = v
    stack.append(i)
print(" ".join(map(str, answer)))
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = list(map(int, input().split()))
answer = []
for i in range(n):
    found = $none
    for j in range(i + 1, n):
        if a[j] > a[i]:
            found = a[j]
            break
    answer.append(found)
print(*answer)
""", 5),),
    buggy="""\
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
answer = [$none] * n
stack = []
for i, v in enumerate(a):
    while stack and a[stack[-1]] <= v:
        answer[stack.pop()] = v
    stack.append(i)
print(" ".join(map(str, answer)))
""",
    # Mostly decreasing arrays: the naive scan then walks far for every element.
    generate=lambda rng, n, knobs: f"{n}\n" + " ".join(
        str(max(0, 10 * (n - i) + rng.randint(-15, 5))) for i in range(n)) + "\n",
    edge_cases=("5\n2 1 2 4 3\n", "1\n5\n", "4\n3 3 3 3\n", "3\n0 0 1\n"),
)
