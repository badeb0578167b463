from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # k: each character is needed k times as often as it occurs in t;
    # side: which of several shortest windows to return (the comparison that keeps it)
    side, cmp = rng.choice((("leftmost", "<"), ("rightmost", "<=")))
    return {"k": rng.randint(1, 4), "side": side, "cmp": cmp}


def generate(rng, n, knobs):
    n = max(n, 2)
    alphabet = "abcdefghijklmnopqrstuvwxyz"[: max(2, min(26, n // 20))]
    s = "".join(rng.choice(alphabet) for _ in range(n))
    # t has two letters or more, so that it can repeat one (what the buggy variant misses)
    t = "".join(rng.choice(alphabet) for _ in range(max(2, n // (50 * knobs["k"]))))
    return (s, t)


FAMILY = Family(
    slug="min-window-substring",
    time_limit_s=1.5,
    title="Minimum window substring",
    difficulty="hard",
    kind="call",
    knobs=knobs,
    func_names=("minWindow", "shortestCover", "smallestWindow", "minimumWindow"),
    starter_code="class Solution:\n    def ${func}(self, s: str, t: str) -> str:\n        ",
    statements=(
        """\
Return the shortest substring of s that contains every character of t $k times
over: a character that occurs r times in t must occur at least $k * r times in
the substring. If several are shortest, return the $side one.
Return "" if there is none.

Constraints: 1 <= len(s), len(t) <= $max_n; lowercase letters.""",
        """\
A window of s (a substring) covers t when, for every letter, the window holds at
least $k times as many copies of it as t does. Find the shortest window of s
that covers t and return it; among equally short ones take the $side. If no
window covers t, return the empty string.

Constraints: 1 <= len(s), len(t) <= $max_n; lowercase letters.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, s: str, t: str) -> str:
        need = Counter(t * $k)
        missing = len(t) * $k
        best = (0, float("inf"))
        left = 0
        for right, c in enumerate(s, start=1):
            if need[c] > 0:
                missing -= 1
            need[c] -= 1
            if missing == 0:
                while need[s[left]] < 0:
                    need[s[left]] += 1
                    left += 1
                if right - left $cmp best[1] - best[0]:
                    best = (left, right)
                need[s[left]] += 1
                missing += 1
                left += 1
        return "" if best[1] == float("inf") else s[best[0]:best[1]]
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, s: str, t: str) -> str:
        need = Counter(t * $k)
        best = ""
        for i in range(len(s)):
            have = Counter()
            for j in range(i, len(s)):
                have[s[j]] += 1
                if all(have[c] >= k for c, k in need.items()):
                    if not best or j - i + 1 $cmp len(best):
                        best = s[i:j + 1]
                    break
        return best
""", 4),),
    buggy="""\
class Solution:
    def ${func}(self, s: str, t: str) -> str:
        need = set(t)
        best = ""
        left = 0
        have = Counter()
        for right, c in enumerate(s):
            have[c] += 1
            while all(have[x] >= $k for x in need):
                if not best or right - left + 1 $cmp len(best):
                    best = s[left:right + 1]
                have[s[left]] -= 1
                left += 1
        return best
""",
    generate=generate,
    edge_cases=(("adobecodebanc", "abc"), ("a", "aa"), ("aa", "aa"), ("ab", "b"),
                ("abcabdbca", "ab")),
)
