from codefrontier.suite.spec import Family

PAIRS = {"(": ")", "[": "]", "{": "}"}


def generate(rng, n, knobs):
    # Deeply nested balanced strings (depth about n/3, which is what makes naive
    # pair-removal quadratic), half of them with one character changed.
    stack, out = [], []
    for _ in range(n):
        if stack and (rng.random() < 0.25 or len(stack) >= n // 2):
            out.append(PAIRS[stack.pop()])
        else:
            opener = rng.choice("([{")
            stack.append(opener)
            out.append(opener)
    out.extend(PAIRS[o] for o in reversed(stack))
    if rng.random() < 0.5 and out:
        out[rng.randrange(len(out))] = rng.choice("()[]{}")
    return "".join(out) + "\n"


FAMILY = Family(
    slug="balanced-brackets",
    title="Balanced brackets",
    difficulty="easy",
    statements=("""\
A string of the characters ()[]{} is balanced when every opening bracket is
closed by the matching bracket in the right order. Is the given string balanced?

Input: one line, the string (length 1 to 500000).
Output: YES or NO.""",),
    efficient="""\
s = input().strip()
match = {")": "(", "]": "[", "}": "{"}
stack = []
ok = True
for c in s:
    if c in "([{":
        stack.append(c)
    elif not stack or stack.pop() != match[c]:
        ok = False
        break
print("YES" if ok and not stack else "NO")
""",
    slow="""\
s = input().strip()
while True:
    shorter = s.replace("()", "").replace("[]", "").replace("{}", "")
    if shorter == s:
        break
    s = shorter
print("YES" if not s else "NO")
""",
    buggy="""\
s = input().strip()
ok = all(s.count(o) == s.count(c) for o, c in ("()", "[]", "{}"))
print("YES" if ok else "NO")
""",
    generate=generate,
    edge_cases=("([]{})\n", "([)]\n", "(\n", "}{\n"),
)
