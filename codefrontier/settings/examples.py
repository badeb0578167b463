"""The worked examples a statement shows, as (input, expected output) pairs.

The agentic setting writes them into the workspace (examples/1.in, examples/1.out);
only what the statement itself shows is used, never a hidden test.
"""

from __future__ import annotations

import re

# bundled stdin problems: "Example 1\n<Input: | Sample input:>\n...\n<Output: | Sample output: |
# Expected output:>\n..."; bundled call problems: "Example 1\nArguments (one JSON value per
# line):\n...\nReturns: ..."; AtCoder / LiveCodeBench: "Sample Input 1\n...\nSample Output 1\n..."
_BUNDLED = re.compile(r"Example \d+\s*\n(?:Input:|Sample input:)\n(?P<input>.*?)\n"
                      r"(?:Output:|Sample output:|Expected output:)\n"
                      r"(?P<output>.*?)(?=\n\s*\nExample \d+|\n\s*\n|\Z)", re.S)
_BUNDLED_CALL = re.compile(r"Example \d+\s*\nArguments \(one JSON value per line\):\n"
                           r"(?P<input>.*?)\nReturns: (?P<output>[^\n]*)", re.S)
_SAMPLE = re.compile(r"Sample Input \d+\s*\n(?P<input>.*?)\n\s*Sample Output \d+\s*\n"
                     r"(?P<output>.*?)(?=\n\s*\n|\nSample Input \d+|\Z)", re.S)


def statement_examples(statement: str) -> list[tuple[str, str]]:
    """The statement's examples, inputs ending with a newline as a program reads them."""
    for pattern in (_BUNDLED, _BUNDLED_CALL, _SAMPLE):
        found = [(m["input"].strip("\n") + "\n", m["output"].strip("\n") + "\n")
                 for m in pattern.finditer(statement)]
        if found:
            return found
    return []
