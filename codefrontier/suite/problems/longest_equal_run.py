from codefrontier.suite.spec import Family, SlowProgram

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def knobs(rng):
    # the letter whose longest run is asked for
    return {"ch": rng.choice(LETTERS)}


def generate(rng, n, knobs):
    # Long runs: checking every start position separately is then quadratic. The letter
    # is drawn twice as often as each of two others; half the strings end with its run.
    n = max(n, 1)
    others = [c for c in LETTERS if c != knobs["ch"]]
    alphabet = [knobs["ch"], knobs["ch"], *rng.sample(others, 2)]
    out, letter = [], ""
    while len(out) < n:
        letter = rng.choice([c for c in alphabet if c != letter])
        out.extend(letter * rng.randint(1, max(1, n // 3)))
    return "".join(reversed(out[:n])) + "\n"


def edge_cases(knobs):
    ch, other = knobs["ch"], "b" if knobs["ch"] == "a" else "a"
    return (f"{other}{ch}{ch}{other}{ch}{ch}{ch}{other}\n", f"{other}\n", f"{ch}\n",
            f"{other}{ch}{other}{ch}{ch}{ch}\n")


FAMILY = Family(
    slug="longest-equal-run",
    title="Longest run",
    difficulty="easy",
    knobs=knobs,
    statements=(
        """\
Print the length of the longest block of consecutive '$ch' characters in s
(0 if s has no '$ch').

Input: s (lowercase letters) on one line.
Output: the length.
Constraints: 1 <= |s| <= $max_n.""",
        """\
A string s of lowercase letters is given. Find the longest substring of s made
only of the letter $ch and print its length; print 0 when the letter $ch does
not occur in s.

Input: one line with s.
Output: one integer, the length of the longest run of $ch.
Constraints: 1 <= |s| <= $max_n.""",
        """\
How many times in a row does the letter '$ch' appear, at most, in s? Print the
largest number of consecutive positions of s that all hold '$ch' (0 if none do).

Input: s (lowercase letters) on one line.
Output: the length.
Constraints: 1 <= |s| <= $max_n.""",
    ),
    efficient="""\
s = input().strip()
best = current = 0
for c in s:
    current = current + 1 if c == "$ch" else 0
    best = max(best, current)
print(best)
""",
    slow=(SlowProgram("naive", """\
s = input().strip()
best = 0
for i in range(len(s)):
    j = i
    while j < len(s) and s[j] == "$ch":
        j += 1
    best = max(best, j - i)
print(best)
""", 5),),
    buggy="""\
s = input().strip()
best = current = 0
for c in s:
    if c == "$ch":
        current += 1
    else:
        best = max(best, current)
        current = 0
print(best)
""",
    generate=generate,
    edge_cases=edge_cases,
)
