import string

from codefrontier.suite.spec import Family, SlowProgram

CHARS = string.ascii_lowercase + string.ascii_uppercase + string.digits + string.punctuation


def knobs(rng):
    # how many times one character may occur in the substring (k = 1: no repeats at all)
    return {"k": rng.randint(1, 9)}


FAMILY = Family(
    slug="longest-unique-substring",
    time_limit_s=1.5,  # the quadratic program needs up to 0.3 s below 10^4 bytes
    title="Longest substring without repeats",
    difficulty="medium",
    kind="call",
    knobs=knobs,
    func_names=("lengthOfLongestSubstring", "longestSubstring", "maxWindowLength",
                "longestLimitedSubstring"),
    starter_code="class Solution:\n    def ${func}(self, s: str) -> int:\n        ",
    statements=(
        """\
Return the length of the longest substring of s in which no character occurs
more than $k times.

Constraints: 0 <= len(s) <= $max_n; s consists of printable ASCII characters.""",
        """\
A substring of s is allowed when every character appears in it at most $k
times. Return the largest length of an allowed substring (0 for an empty s).

Constraints: 0 <= len(s) <= $max_n; s consists of printable ASCII characters.""",
        """\
s is a string of printable ASCII characters. Find the longest contiguous piece
of s that contains no character $k + 1 or more times, and return its length.

Constraints: 0 <= len(s) <= $max_n.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, s: str) -> int:
        count = Counter()
        start = best = 0
        for i, c in enumerate(s):
            count[c] += 1
            while count[c] > $k:
                count[s[start]] -= 1
                start += 1
            best = max(best, i - start + 1)
        return best
""",
    slow=(
        # every substring, counted afresh
        SlowProgram("cubic", """\
class Solution:
    def ${func}(self, s: str) -> int:
        def allowed(piece):
            seen = {}
            for c in piece:
                seen[c] = seen.get(c, 0) + 1
            return max(seen.values()) <= $k

        best = 0
        for i in range(len(s)):
            for j in range(i, len(s)):
                if j - i + 1 > best and allowed(s[i:j + 1]):
                    best = j - i + 1
        return best
""", 3),
        SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, s: str) -> int:
        best = 0
        for i in range(len(s)):
            seen = Counter()
            allowed = True
            length = 0
            for c in s[i:]:
                seen[c] += 1
                length += 1
                if seen[c] > $k:
                    allowed = False
                if allowed and length > best:
                    best = length
        return best
""", 4),
    ),
    buggy="""\
class Solution:
    def ${func}(self, s: str) -> int:
        count = Counter()
        start = best = 0
        for i, c in enumerate(s):
            count[c] += 1
            if count[c] > $k:
                count[s[start]] -= 1
                start += 1
            best = max(best, i - start + 1)
        return best
""",
    # An alphabet of up to 94 characters, narrower for short strings so that they repeat.
    generate=lambda rng, n, knobs: ("".join(
        rng.choices(CHARS[:max(2, n // knobs["k"])], k=n)),),
    edge_cases=lambda knobs: (("abcabcbb",), ("bbbbb",), ("",), ("abba",),
                              ("ab" + "a" * knobs["k"] + "cd",)),
)
