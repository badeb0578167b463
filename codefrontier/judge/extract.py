"""Extracting the program from a model's raw completion."""

from __future__ import annotations

import re

# A complete fenced block: an opening fence at line start with an optional
# language tag, the body, and a closing fence at line start. LiveCodeBench
# takes the last such block; so do we.
_FENCE = re.compile(
    r"^```[ \t]*(?P<lang>[A-Za-z0-9_+.-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_PYTHON_TAGS = {"", "python", "py", "python3"}


def extract_code(completion: str) -> str | None:
    """Return the body of the last complete ```python / ```py / bare ``` block, or None."""
    blocks = [m for m in _FENCE.finditer(completion) if m.group("lang").lower() in _PYTHON_TAGS]
    if not blocks:
        return None
    return blocks[-1].group("body")
