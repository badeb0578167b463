from codefrontier.suite.spec import Family, SlowProgram

ALL_PAIRS = ("()", "[]", "{}", "<>")
ANSWERS = (("YES", "NO"), ("Yes", "No"), ("balanced", "unbalanced"), ("1", "0"),
           ("true", "false"), ("OK", "BAD"))


def generate(rng, n, knobs):
    # Deeply nested balanced strings (depth about n/3, which is what makes naive
    # pair-removal quadratic); a quarter get one character changed, a quarter two
    # neighbours swapped.
    pairs = knobs["pairs"]
    closer = {pairs[i]: pairs[i + 1] for i in (0, 2, 4)}
    stack, out = [], []
    for _ in range(n):
        if stack and (rng.random() < 0.25 or len(stack) >= n // 2):
            out.append(closer[stack.pop()])
        else:
            opener = rng.choice(pairs[::2])
            stack.append(opener)
            out.append(opener)
    out.extend(closer[o] for o in reversed(stack))
    chance = rng.random()
    if chance < 0.25 and out:
        out[rng.randrange(len(out))] = rng.choice(pairs)
    elif chance < 0.5 and len(out) > 1:  # a swap keeps the counts of every character
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return "".join(out) + "\n"


def knobs(rng):
    # which three bracket kinds (and in what order the statement lists them), and the
    # two words printed for a balanced / an unbalanced string
    yes, no = rng.choice(ANSWERS)
    return {"pairs": "".join(rng.sample(ALL_PAIRS, 3)), "yes": yes, "no": no}


def edge_cases(knobs):
    a, b, c = (knobs["pairs"][i:i + 2] for i in (0, 2, 4))
    cases = (a[0] + b + c + a[1], a[0] + b[0] + a[1] + b[1], a[0], c[1] + c[0])
    return tuple(case + "\n" for case in cases)


FAMILY = Family(
    slug="balanced-brackets",
    title="Balanced brackets",
    difficulty="easy",
    knobs=knobs,
    statements=(
        """\
A string of the characters $pairs is balanced when every opening bracket is
closed by the matching bracket in the right order. Is the given string balanced?

Input: one line, the string (length 1 to $max_n).
Output: $yes if it is balanced, $no otherwise.""",
        """\
The bracket pairs are $pairs (each opener followed by its closer). Decide whether
a string of these characters is properly nested: every closer must match the
most recent unclosed opener, and no opener may stay unclosed.

Input: a single line with the string (length 1 to $max_n).
Output: print $yes for a properly nested string and $no for any other.""",
        """\
Print $yes when the given string is a correct bracket sequence and $no when it
is not. The string uses only the characters $pairs, where each opening bracket
is listed right before its closing one; a correct sequence closes every opened
bracket with its own kind, innermost first.

Input: one line, the string (length 1 to $max_n).
Output: $yes or $no.""",
    ),
    efficient="""\
s = input().strip()
pairs = "$pairs"
match = {pairs[i + 1]: pairs[i] for i in (0, 2, 4)}
stack = []
ok = True
for c in s:
    if c not in match:
        stack.append(c)
    elif not stack or stack.pop() != match[c]:
        ok = False
        break
print("$yes" if ok and not stack else "$no")
""",
    slow=(SlowProgram("naive", """\
s = input().strip()
pairs = "$pairs"
while True:
    shorter = s
    for i in (0, 2, 4):
        shorter = shorter.replace(pairs[i:i + 2], "")
    if shorter == s:
        break
    s = shorter
print("$yes" if not s else "$no")
""", 5),),
    buggy="""\
s = input().strip()
pairs = "$pairs"
ok = all(s.count(pairs[i]) == s.count(pairs[i + 1]) for i in (0, 2, 4))
print("$yes" if ok else "$no")
""",
    generate=generate,
    edge_cases=edge_cases,
)
