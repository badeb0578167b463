from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    # Long runs: checking every start position separately is then quadratic.
    n = max(n, 1)
    out, letter = [], "a"
    while len(out) < n:
        letter = rng.choice([c for c in "abc" if c != letter])
        out.extend(letter * rng.randint(1, max(1, n // 3)))
    return "".join(out[:n]) + "\n"


FAMILY = Family(
    slug="longest-equal-run",
    title="Longest run",
    difficulty="easy",
    statements=("""\
Print the length of the longest block of consecutive equal characters in s.

Input: s (lowercase letters) on one line.
Output: the length.
Constraints: 1 <= |s| <= 500000.""",),
    efficient="""\
s = input().strip()
best = current = 1
for previous, c in zip(s, s[1:]):
    current = current + 1 if c == previous else 1
    best = max(best, current)
print(best)
""",
    slow="""\
s = input().strip()
best = 0
for i in range(len(s)):
    j = i
    while j < len(s) and s[j] == s[i]:
        j += 1
    best = max(best, j - i)
print(best)
""",
    buggy="""\
s = input().strip()
best = current = 1
for previous, c in zip(s, s[1:]):
    if c == previous:
        current += 1
    else:
        best = max(best, current)
        current = 1
print(best)
""",
    generate=generate,
    edge_cases=("aabbbcc\n", "z\n", "abcddd\n"),
)
