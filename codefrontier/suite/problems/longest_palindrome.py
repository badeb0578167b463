from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # positions of s counted from 0 or from 1 in the answer
    return {"base": rng.choice((0, 1))}


def generate(rng, n, knobs):
    # Long runs of one letter hold long palindromes: expanding around every centre
    # is then quadratic. About 200 other letters cut the runs of a long string (a run
    # grows with n, so the expansion stays quadratic); short strings get a few too.
    n = max(n, 1)
    other = max(2 / n, min(0.1, 200 / n))
    return "".join("a" if rng.random() >= other else rng.choice("bc") for _ in range(n)) + "\n"


FAMILY = Family(
    slug="longest-palindrome",
    title="Longest palindromic substring",
    difficulty="hard",
    knobs=knobs,
    statements=(
        """\
Find the longest substring of s that reads the same forwards and backwards; if
several are longest, take the leftmost. Print its length and the position of
its first character, where the first character of s has position $base.

Input: s (lowercase letters) on one line.
Output: the length and the starting position, separated by a space.
Constraints: 1 <= |s| <= $max_n.""",
        """\
A palindrome reads the same in both directions. Among the palindromic
substrings of s, take a longest one, and among those the one that starts
earliest. Print two numbers: its length, then its starting position (positions
in s are counted from $base).

Input: one line with s, made of lowercase letters.
Output: "length start" on one line.
Constraints: 1 <= |s| <= $max_n.""",
    ),
    efficient="""\
s = input().strip()
t = "^#" + "#".join(s) + "#$$"
radius = [0] * len(t)
centre = right = 0
for i in range(1, len(t) - 1):
    if i < right:
        radius[i] = min(right - i, radius[2 * centre - i])
    while t[i + radius[i] + 1] == t[i - radius[i] - 1]:
        radius[i] += 1
    if i + radius[i] > right:
        centre, right = i, i + radius[i]
i = radius.index(max(radius))
print(radius[i], (i - radius[i] - 1) // 2 + $base)
""",
    slow=(SlowProgram("quadratic", """\
s = input().strip()
best = start = 0
for centre in range(2 * len(s) - 1):
    left, right = centre // 2, (centre + 1) // 2
    while left >= 0 and right < len(s) and s[left] == s[right]:
        left -= 1
        right += 1
    if right - left - 1 > best:
        best, start = right - left - 1, left + 1
print(best, start + $base)
""", 5),),
    buggy="""\
s = input().strip()
best, start = 1, 0
for centre in range(len(s)):
    left = right = centre
    while left >= 0 and right < len(s) and s[left] == s[right]:
        left -= 1
        right += 1
    if right - left - 1 > best:
        best, start = right - left - 1, left + 1
print(best, start + $base)
""",
    generate=generate,
    edge_cases=("babad\n", "cbbd\n", "a\n", "abccba\n", "abacdcx\n"),
    time_limit_s=2.0,
)
