from codefrontier.suite.spec import Family, SlowProgram

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def knobs(rng):
    # the letter whose longest run is asked for
    return {"ch": rng.choice(LETTERS)}


def generate(rng, n, knobs):
    # One long run of the letter (85-95% of s; half the strings end with it) among short
    # runs of it and of two other letters: walking from every start position is then
    # quadratic, with a time that depends little on the draw.
    n, ch = max(n, 1), knobs["ch"]
    others = rng.sample([c for c in LETTERS if c != ch], 2)
    long_run = max(1, round(n * rng.uniform(0.85, 0.95)))
    rest, letter = [], ch
    while len(rest) < n - long_run:
        letter = rng.choice([c for c in (ch, *others) if c != letter])
        rest.extend(letter * rng.randint(1, 5))
    rest = rest[:n - long_run]
    at = len(rest) if rng.random() < 0.5 else rng.randrange(len(rest) + 1)
    return "".join(rest[:at]) + ch * long_run + "".join(rest[at:]) + "\n"


def edge_cases(knobs):
    ch, other = knobs["ch"], "b" if knobs["ch"] == "a" else "a"
    return (f"{other}{ch}{ch}{other}{ch}{ch}{ch}{other}\n", f"{other}\n", f"{ch}\n",
            f"{other}{ch}{other}{ch}{ch}{ch}\n")


FAMILY = Family(
    slug="longest-equal-run",
    title="Longest run",
    difficulty="easy",
    time_limit_s=1.0,
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
    slow=(
        # every substring, its letters counted one by one
        SlowProgram("cubic", """\
s = input().strip()
n = len(s)
best = 0
for i in range(n):
    for j in range(i, n):
        count = 0
        for k in range(i, j + 1):
            if s[k] == "$ch":
                count += 1
        if count == j - i + 1 and count > best:
            best = count
print(best)
""", 3),
        # the run from every start position, walked separately
        SlowProgram("quadratic", """\
s = input().strip()
best = 0
for i in range(len(s)):
    j = i
    while j < len(s) and s[j] == "$ch":
        j += 1
    best = max(best, j - i)
print(best)
""", 4),
    ),
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
