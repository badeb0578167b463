"""A least-recently-used cache bounded by the bytes it holds."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any


class ByteBudgetCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._bytes = 0

    def get(self, key: str) -> Any | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: str, value: Any, size: int) -> None:
        if key in self._entries:
            self._bytes -= self._entries.pop(key)[1]
        self._entries[key] = (value, size)
        self._bytes += size
        while self._bytes > self.max_bytes and len(self._entries) > 1:
            _, (_, evicted) = self._entries.popitem(last=False)
            self._bytes -= evicted

    def __contains__(self, key: str) -> bool:
        return key in self._entries


def text_bytes(texts) -> int:
    return sum(len(t) for t in texts)
