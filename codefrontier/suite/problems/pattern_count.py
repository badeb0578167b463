from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    # Runs of "a" between single "b"s, and a pattern of "a"s about as long as a run:
    # overlapping matches, and a naive comparison at each position walks most of a run.
    n = max(n, 1)
    m = max(1, n // 3)
    runs = []
    while sum(runs) + len(runs) < n:
        runs.append(rng.randint(max(1, m // 2), 2 * m))
    return "b".join("a" * r for r in runs) + f"\n{'a' * m}\n"


FAMILY = Family(
    slug="pattern-count",
    title="Counting occurrences",
    difficulty="medium",
    statements=("""\
Count the positions at which the pattern p occurs in the text t; occurrences may
overlap.

Input: t on the first line, p on the second (lowercase letters).
Output: the number of occurrences.
Constraints: 1 <= |p|, |t| <= 300000.""",),
    efficient="""\
import sys

text, pattern = sys.stdin.read().split()
combined = pattern + "#" + text
border = [0] * len(combined)
count = 0
for i in range(1, len(combined)):
    k = border[i - 1]
    while k and combined[i] != combined[k]:
        k = border[k - 1]
    if combined[i] == combined[k]:
        k += 1
    border[i] = k
    if k == len(pattern):
        count += 1
print(count)
""",
    slow="""\
text = input().strip()
pattern = input().strip()
count = 0
for i in range(len(text) - len(pattern) + 1):
    match = True
    for j in range(len(pattern)):
        if text[i + j] != pattern[j]:
            match = False
            break
    if match:
        count += 1
print(count)
""",
    buggy="""\
text = input().strip()
pattern = input().strip()
print(text.count(pattern))
""",
    generate=generate,
    edge_cases=("abababa\naba\n", "aaaa\naa\n", "abc\nd\n", "a\naa\n"),
)
