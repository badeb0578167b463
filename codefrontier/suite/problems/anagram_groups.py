from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # many groups (about n/3, whatever k, so that groups of k words are common and the
    # naive scan's time does not depend on k): it compares each word with every group so far
    # (half of them twins: a root with one letter doubled, the same set of letters with
    # other counts, so that even a short input tells anagrams from equal letter sets)
    roots = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
             for _ in range(max(1, n // 6))]
    roots += [root + root[0] for root in roots]
    words = []
    for _ in range(n):
        letters = list(rng.choice(roots))
        rng.shuffle(letters)
        words.append("".join(letters))
    return f"{n}\n" + " ".join(words) + "\n"


def knobs(rng):
    # only groups of at least k words count (k = 1 counts every group)
    return {"k": rng.randint(1, 5)}


def edge_cases(knobs):
    k = knobs["k"]
    # k copies of "ab" and of "aab": two groups of exactly k words (one if letters are a set)
    return ("6\neat tea tan ate nat bat\n", "1\na\n",
            f"{2 * k}\n" + " ".join(["ab", "aab"] * k) + "\n")


FAMILY = Family(
    slug="anagram-groups",
    title="Anagram groups",
    difficulty="easy",
    time_limit_s=0.5,
    knobs=knobs,
    statements=(
        """\
Two words are in the same group when one is an anagram of the other (the same
letters, each the same number of times). How many groups of at least $k words
do n words form?

Input: n, then the n words (lowercase letters), separated by spaces.
Output: the number of groups with at least $k words.
Constraints: 1 <= n <= $max_n, words have 1 to 10 letters.""",
        """\
You are given n lowercase words. Put words that are anagrams of each other (they
use exactly the same multiset of letters) into one group. Count the groups that
contain $k or more words.

Input: the first line holds n; the second line holds the n words, separated by spaces.
Output: one number, the count of such groups.
Constraints: 1 <= n <= $max_n, words have 1 to 10 letters.""",
        """\
Count the anagram groups of size at least $k among n words. A group collects all
the words that are rearrangements of one another (same letters with the same
multiplicities); a word's group has at least one member, the word itself.

Input: n, then the n words (lowercase letters), separated by spaces.
Output: the number of groups holding at least $k words.
Constraints: 1 <= n <= $max_n, words have 1 to 10 letters.""",
    ),
    efficient="""\
import sys
from collections import Counter

data = sys.stdin.read().split()
n = int(data[0])
groups = Counter("".join(sorted(w)) for w in data[1:1 + n])
print(sum(1 for c in groups.values() if c >= $k))
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
keys = ["".join(sorted(w)) for w in input().split()]
groups = []
sizes = []
for key in keys:
    for i in range(len(groups)):
        if groups[i] == key:
            sizes[i] += 1
            break
    else:
        groups.append(key)
        sizes.append(1)
print(sum(1 for size in sizes if size >= $k))
""", 5),),
    buggy="""\
import sys
from collections import Counter

data = sys.stdin.read().split()
n = int(data[0])
groups = Counter(frozenset(w) for w in data[1:1 + n])
print(sum(1 for c in groups.values() if c >= $k))
""",
    generate=generate,
    edge_cases=edge_cases,
)
