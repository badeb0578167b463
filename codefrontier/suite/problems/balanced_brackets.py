from codefrontier.suite.spec import Family, SlowProgram

ALL_PAIRS = ("()", "[]", "{}", "<>")
ANSWERS = (("YES", "NO"), ("Yes", "No"), ("balanced", "unbalanced"), ("1", "0"),
           ("true", "false"), ("OK", "BAD"))


def generate(rng, n, knobs):
    # Deeply nested balanced strings of length n (or n - 1; depth about 0.44 n, which is
    # what makes naive pair-removal quadratic); a quarter get one character changed, a
    # quarter two neighbours swapped, within 5% of the end (so that pair-removal still
    # has nearly all its work to do, and the split search does not stop at a stray
    # closer near the start: their times hardly depend on the draw).
    pairs = knobs["pairs"]
    closer = {pairs[i]: pairs[i + 1] for i in (0, 2, 4)}
    stack, out = [], []
    while True:
        can_open = n - len(out) - len(stack) >= 2  # room for an opener and its closer
        if stack and (not can_open or rng.random() < 0.1):
            out.append(closer[stack.pop()])
        elif can_open:
            opener = rng.choice(pairs[::2])
            stack.append(opener)
            out.append(opener)
        else:
            break
    if not out:  # n = 1
        out.append(rng.choice(pairs))
    chance = rng.random()
    if chance < 0.25:
        out[len(out) - 1 - rng.randrange(len(out) // 20 + 1)] = rng.choice(pairs)
    elif chance < 0.5 and len(out) > 1:  # a swap keeps the counts of every character
        i = len(out) - 2 - rng.randrange((len(out) - 1) // 20 + 1)
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
    time_limit_s=1.5,
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
    slow=(
        # the definition as a recursion without memo: empty, or (A)B with A and B
        # balanced, trying every closer that could end (A)
        SlowProgram("exponential", """\
s = input().strip()
pairs = "$pairs"
closer = {pairs[i]: pairs[i + 1] for i in (0, 2, 4)}


def balanced(s):
    if not s:
        return True
    if s[0] not in closer:
        return False
    for k in range(1, len(s)):
        if s[k] == closer[s[0]] and balanced(s[1:k]) and balanced(s[k + 1:]):
            return True
    return False


print("$yes" if balanced(s) else "$no")
""", 2),
        # the same definition over every substring, shortest first (an interval DP)
        SlowProgram("cubic", """\
s = input().strip()
pairs = "$pairs"
closer = {pairs[i]: pairs[i + 1] for i in (0, 2, 4)}
n = len(s)
ok = [[False] * (n + 1) for _ in range(n + 1)]  # ok[i][j]: s[i:j] is balanced
for i in range(n + 1):
    ok[i][i] = True
for length in range(1, n + 1):
    for i in range(n - length + 1):
        j = i + length
        if s[i] in closer and s[j - 1] == closer[s[i]] and ok[i + 1][j - 1]:
            ok[i][j] = True
        else:
            for k in range(i + 1, j):
                if ok[i][k] and ok[k][j]:
                    ok[i][j] = True
                    break
print("$yes" if ok[0][n] else "$no")
""", 3),
        # n times the depth: one pass deletes the innermost pairs
        SlowProgram("quadratic", """\
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
""", 5),
    ),
    buggy="""\
s = input().strip()
pairs = "$pairs"
ok = all(s.count(pairs[i]) == s.count(pairs[i + 1]) for i in (0, 2, 4))
print("$yes" if ok else "$no")
""",
    generate=generate,
    edge_cases=edge_cases,
)
