from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    # many groups (about n/3): the naive scan compares each word with every group so far
    roots = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 10)))
             for _ in range(max(1, n // 3))]
    words = []
    for _ in range(n):
        letters = list(rng.choice(roots))
        rng.shuffle(letters)
        words.append("".join(letters))
    return f"{n}\n" + " ".join(words) + "\n"


FAMILY = Family(
    slug="anagram-groups",
    title="Anagram groups",
    difficulty="easy",
    statements=("""\
Two words are in the same group when one is an anagram of the other (the same
letters, each the same number of times). How many groups do n words form?

Input: n, then the n words (lowercase letters), separated by spaces.
Output: the number of groups.
Constraints: 1 <= n <= 100000, words have 1 to 10 letters.""",),
    efficient="""\
import sys

data = sys.stdin.read().split()
n = int(data[0])
print(len({"".join(sorted(w)) for w in data[1:1 + n]}))
""",
    slow="""\
n = int(input())
words = input().split()
representatives = []
for w in words:
    if not any(sorted(w) == sorted(r) for r in representatives):
        representatives.append(w)
print(len(representatives))
""",
    buggy="""\
import sys

data = sys.stdin.read().split()
n = int(data[0])
print(len({frozenset(w) for w in data[1:1 + n]}))
""",
    generate=generate,
    edge_cases=("6\neat tea tan ate nat bat\n", "1\na\n", "3\nab aab ba\n"),
)
