"""Cutting program output down to what an observation or a log can hold.

    text, truncated = head_tail(output, 2000)

keeps the first and the last half of `limit` characters with a marker line
between them, so both how a program started and how it ended stay visible.
"""

from __future__ import annotations

# Unicode "Cc" controls (C0, DEL, C1) but the line feed and the tab: a NUL or an
# escape sequence in an observation confuses tokenizers, terminals and parquet readers.
_CONTROLS = dict.fromkeys(
    [c for c in range(0x20) if chr(c) not in "\n\t"] + list(range(0x7F, 0xA0)))


def strip_controls(text: str) -> str:
    """`text` without control characters other than newline and tab."""
    return text.translate(_CONTROLS)


def cut_marker(cut: int) -> str:
    return f"\n[... {cut} characters cut ...]\n"


def _halves(limit: int) -> tuple[int, int]:
    return limit - limit // 2, limit // 2


def head_tail(text: str, limit: int) -> tuple[str, bool]:
    """`text` without control characters (but newline and tab), cut to its first and last
    halves of `limit` characters around a marker line when longer than `limit`; and
    whether anything was cut. Never longer than `limit` plus the marker."""
    if limit < 0:
        raise ValueError(f"limit must be at least 0, got {limit}")
    text = strip_controls(text)
    if len(text) <= limit:
        return text, False
    head, tail = _halves(limit)
    return text[:head] + cut_marker(len(text) - limit) + text[len(text) - tail:], True


def decode(data: bytes) -> str:
    """Bytes a program wrote, as text: UTF-8 with replacement characters for the rest."""
    return data.decode("utf-8", errors="replace")


def excerpt_bytes(limit: int) -> int:
    """Bytes to keep at each end of a stream so that `limit` characters survive decoding."""
    return 4 * limit + 4


def cut_stream(head: bytes, tail: bytes, size: int, limit: int) -> tuple[str, bool]:
    """head_tail of a stream of `size` bytes of which a reader kept only the first
    (`head`) and the last (`tail`) bytes; `tail` is empty when `head` is all of it.
    The marker counts the dropped middle bytes as characters."""
    omitted = size - len(head) - len(tail)
    if omitted <= 0 and not tail:
        return head_tail(decode(head), limit)
    if omitted <= 0:
        return head_tail(decode(head) + decode(tail), limit)
    first, last = strip_controls(decode(head)), strip_controls(decode(tail))
    keep_head, keep_tail = _halves(limit)
    keep_head, keep_tail = min(keep_head, len(first)), min(keep_tail, len(last))
    cut = omitted + len(first) - keep_head + len(last) - keep_tail
    return first[:keep_head] + cut_marker(cut) + last[len(last) - keep_tail:], True


class HeadTailBuffer:
    """Keeps the first and the last `keep` bytes of a stream and counts the rest."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > 2 * self.keep:
            del self.tail[:len(self.tail) - self.keep]

    def text(self, limit: int) -> tuple[str, bool]:
        if self.size <= 2 * self.keep:
            return cut_stream(bytes(self.head + self.tail), b"", self.size, limit)
        return cut_stream(bytes(self.head), bytes(self.tail[-self.keep:]), self.size, limit)
