from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # Runs of "a" between single "b"s, and a pattern of "a"s about as long as a run:
    # overlapping matches, and a naive comparison at each position walks most of a run.
    # The pattern grows with d, so that a naive scan of every d-th position does as
    # much work for every d.
    n = max(n, 1)
    m = max(1, n * knobs["d"] // 84)
    runs = []
    while sum(runs) + len(runs) < n:
        runs.append(rng.randint(max(1, m // 2), 2 * m))
    return "b".join("a" * r for r in runs)[:n] + f"\n{'a' * m}\n"


def knobs(rng):
    # d: only occurrences starting at positions 1, 1 + d, 1 + 2d, ... (a reading frame) count
    return {"d": rng.randint(2, 9)}


FAMILY = Family(
    slug="pattern-count",
    title="Counting occurrences",
    difficulty="medium",
    time_limit_s=1.0,  # the naive scan needs up to 0.16 s below 10^5 bytes
    knobs=knobs,
    statements=(
        """\
Count the occurrences of the pattern p in the text t whose starting position s
(positions counted from 1) has s - 1 divisible by $d; occurrences may overlap.

Input: t on the first line, p on the second (lowercase letters).
Output: the number of such occurrences.
Constraints: 1 <= |p|, |t| <= $max_n.""",
        """\
The text t is read in frames of $d letters: the first frame starts at the first
letter, the next one $d letters later, and so on. Count how many frames begin
with an occurrence of the pattern p (the occurrence may run past the end of
its frame, and occurrences may overlap).

Input: the text t on the first line, the pattern p on the second; both consist
of lowercase letters.
Output: one number, the count.
Constraints: 1 <= |p|, |t| <= $max_n.""",
        """\
Given a text t and a pattern p, count the indices i with i mod $d = 0 (indices
counted from 0) such that p occurs in t starting at index i. Overlapping
occurrences all count.

Input: t on the first line, p on the second (lowercase letters).
Output: the count.
Constraints: 1 <= |p|, |t| <= $max_n.""",
    ),
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
    if k == len(pattern) and (i - 2 * len(pattern)) % $d == 0:
        count += 1
print(count)
""",
    slow=(SlowProgram("quadratic", """\
text = input().strip()
pattern = input().strip()
count = 0
for i in range(0, len(text) - len(pattern) + 1, $d):
    match = True
    for j in range(len(pattern)):
        if text[i + j] != pattern[j]:
            match = False
            break
    if match:
        count += 1
print(count)
""", 5),),
    buggy="""\
text = input().strip()
pattern = input().strip()
count, i = 0, text.find(pattern)
while i != -1:
    count += i % $d == 0
    i = text.find(pattern, i + len(pattern))
print(count)
""",
    generate=generate,
    edge_cases=("abababa\naba\n", "aaaaaaaaaa\naa\n", "abc\nd\n", "a\naa\n", "abcab\nab\n"),
)
