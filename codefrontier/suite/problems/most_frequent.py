from collections import Counter

from codefrontier.suite.gen import ints, line
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # Remainders repeat, and a random one is topped up to tie for the most frequent (the
    # tie-break matters), by overwriting values that are less frequent, so that there
    # are exactly n values; half the values are shifted by -m or +m, so only their
    # remainders agree (m is large: many distinct remainders).
    m, spread = knobs["m"], max(2, n // 3)
    a = ints(rng, n, 0, spread)
    counts, v = Counter(a), rng.randint(0, spread)
    top = max(counts.values())
    spare = [i for i, r in enumerate(a) if r != v and counts[r] < top]
    if top - counts[v] <= len(spare):
        for i in rng.sample(spare, top - counts[v]):
            a[i] = v
    return f"{n}\n" + line(r + m * rng.choice((-1, 0, 0, 1)) for r in a) + "\n"


def knobs(rng):
    tie = rng.choice((("smallest", "min", "<"), ("largest", "max", ">")))
    # m: values are compared by their remainder modulo m; tie: which remainder wins a tie
    # (word in the statement, function in the programs, comparison in the slow one)
    return {"m": rng.randint(100_000, 999_999), "tie": tie[0], "pick": tie[1], "cmp": tie[2]}


FAMILY = Family(
    slug="most-frequent",
    title="Most frequent value",
    difficulty="easy",
    time_limit_s=0.5,
    knobs=knobs,
    statements=(
        """\
Two integers count as the same value when they leave the same remainder modulo
$m. Among the remainders modulo $m of n integers, print the one that occurs most
often; among equally frequent remainders, print the $tie.

Input: n, then the n integers.
Output: the remainder r, with 0 <= r < $m.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
Reduce each of n integers modulo $m (to a remainder r with 0 <= r < $m). Which
remainder appears most often? If several remainders share the highest count,
answer with the $tie of them.

Input: the first line holds n; the second line holds the n integers.
Output: one number, that remainder.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
        """\
You are given n integers. Print the most frequent remainder modulo $m among them
(remainders are non-negative and below $m); when there is a tie for the highest
frequency, print the $tie remainder in the tie.

Input: n, then the n integers.
Output: the remainder.
Constraints: 1 <= n <= $max_n, |a_i| <= 10^9.""",
    ),
    efficient="""\
import sys
from collections import Counter

data = sys.stdin.buffer.read().split()
n = int(data[0])
counts = Counter(int(x) % $m for x in data[1:1 + n])
top = max(counts.values())
print($pick(v for v, c in counts.items() if c == top))
""",
    slow=(SlowProgram("quadratic", """\
n = int(input())
a = [int(x) % $m for x in input().split()]
best, best_count = None, 0
for v in a:
    c = a.count(v)
    if c > best_count or (c == best_count and v $cmp best):
        best, best_count = v, c
print(best)
""", 5),),
    buggy="""\
from collections import Counter
n = int(input())
a = [int(x) % $m for x in input().split()]
print(Counter(a).most_common(1)[0][0])
""",
    generate=generate,
    edge_cases=lambda k: (f"6\n4 1 4 1 2 {3 + k['m']}\n", "1\n-5\n", f"3\n9 {8 - k['m']} 7\n",
                          f"4\n{k['m']} 0 {k['m'] + 1} 1\n"),
)
