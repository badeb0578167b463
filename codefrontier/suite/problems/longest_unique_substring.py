from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="longest-unique-substring",
    title="Longest substring without repeats",
    difficulty="medium",
    kind="call",
    func_names=("lengthOfLongestSubstring",),
    starter_code="class Solution:\n    def lengthOfLongestSubstring(self, s: str) -> int:\n        ",
    statements=("""\
Return the length of the longest substring of s in which no character repeats.

Constraints: 0 <= len(s) <= 10^5; s consists of printable ASCII characters.""",),
    efficient="""\
class Solution:
    def lengthOfLongestSubstring(self, s: str) -> int:
        last = {}
        start = best = 0
        for i, c in enumerate(s):
            if last.get(c, -1) >= start:
                start = last[c] + 1
            last[c] = i
            best = max(best, i - start + 1)
        return best
""",
    slow="""\
class Solution:
    def lengthOfLongestSubstring(self, s: str) -> int:
        best = 0
        for i in range(len(s)):
            seen = set()
            unique = True
            for j in range(i, len(s)):
                unique = unique and s[j] not in seen
                seen.add(s[j])
                if unique:
                    best = max(best, j - i + 1)
        return best
""",
    buggy="""\
class Solution:
    def lengthOfLongestSubstring(self, s: str) -> int:
        last = {}
        start = best = 0
        for i, c in enumerate(s):
            if c in last:
                start = last[c] + 1
            last[c] = i
            best = max(best, i - start + 1)
        return best
""",
    # A wide alphabet keeps windows long, which is what makes the naive scan slow.
    generate=lambda rng, n, knobs: ("".join(chr(rng.randint(33, 126)) for _ in range(n)),),
    edge_cases=(("abcabcbb",), ("bbbbb",), ("",), ("abba",)),
)
