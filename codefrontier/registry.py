"""The table each registry keeps (settings, rewards, problem sources): names to entries,
in the order they were registered, refusing a second entry under a name."""

from __future__ import annotations

from typing import Generic, TypeVar

Entry = TypeVar("Entry")


class Registry(dict[str, Entry], Generic[Entry]):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind  # what an entry is, for errors: "setting", "reward family", ...

    def add(self, name: str, entry: Entry) -> Entry:
        if name in self:
            raise ValueError(f"the {self.kind} {name!r} is registered already")
        self[name] = entry
        return entry
