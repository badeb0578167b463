from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    # Long runs of one letter hold long palindromes: expanding around every centre
    # is then quadratic.
    n = max(n, 1)
    return "".join("a" if rng.random() < 0.995 else rng.choice("bc") for _ in range(n)) + "\n"


FAMILY = Family(
    slug="longest-palindrome",
    title="Longest palindromic substring",
    difficulty="hard",
    statements=("""\
Print the length of the longest substring of s that reads the same forwards and
backwards.

Input: s (lowercase letters) on one line.
Output: the length.
Constraints: 1 <= |s| <= 300000.""",),
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
print(max(radius))
""",
    slow="""\
s = input().strip()
best = 0
for centre in range(2 * len(s) - 1):
    left, right = centre // 2, (centre + 1) // 2
    while left >= 0 and right < len(s) and s[left] == s[right]:
        left -= 1
        right += 1
    best = max(best, right - left - 1)
print(best)
""",
    buggy="""\
s = input().strip()
best = 1
for centre in range(len(s)):
    left = right = centre
    while left >= 0 and right < len(s) and s[left] == s[right]:
        left -= 1
        right += 1
    best = max(best, right - left - 1)
print(best)
""",
    generate=generate,
    edge_cases=("babad\n", "cbbd\n", "a\n", "abccba\n"),
    time_limit_s=2.0,  # Manacher in Python needs 0.7 s on the largest test
)
