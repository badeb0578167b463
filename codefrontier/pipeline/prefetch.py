"""What a config reads from the Hugging Face Hub, and `codefrontier prefetch`: fetch all of
it into the cache once, on a machine with network access, so that the jobs (which may run
where the Hub cannot be reached, with HF_HUB_OFFLINE=1) find it there.

A model is read from the Hub when its `sft_checkpoint` is a repository id (RL starts from
it), or when its `base` is one and the grid fine-tunes it; a dataset when a data entry's
source reads a Hub repository and names no local `data_dir`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codefrontier.loaders.hub import (
    MODEL_FILES,
    cached_snapshot,
    fetch_snapshot,
    folder_bytes,
    hub_cache_dir,
    model_folder_is_complete,
)
from codefrontier.pipeline.places import Places, model_reference
from codefrontier.pipeline.workflow import trains_sft


@dataclass(frozen=True)
class HubItem:
    """One repository a config reads: the key that names it, and the files it needs."""

    where: tuple[str, ...]
    repo: str
    kind: str  # "model" or "dataset"
    patterns: tuple[str, ...]

    def cached(self) -> Path | None:
        """Its snapshot in the cache, if the cache holds everything it needs."""
        folder = cached_snapshot(self.repo, self.kind, self.patterns)
        if folder is None:
            return None
        if self.kind == "model" and not model_folder_is_complete(folder):
            return None
        if self.kind == "dataset" and not all(any(folder.glob(p)) for p in self.patterns):
            return None
        return folder

    def fetch(self) -> Path:
        return fetch_snapshot(self.repo, self.kind, self.patterns)

    def size_on_hub(self) -> int:
        """The bytes of the files it needs, as the Hub lists them (needs the network)."""
        from huggingface_hub import snapshot_download

        files = snapshot_download(self.repo, repo_type=self.kind, cache_dir=hub_cache_dir(),
                                  allow_patterns=list(self.patterns), dry_run=True)
        return sum(info.file_size or 0 for info in files)


def hub_items(config: dict, places: Places) -> list[HubItem]:
    """Every repository the config's jobs read from the Hub, once each."""
    from codefrontier.loaders.sources import SOURCES

    items: list[HubItem] = []
    for model, model_config in (config.get("models") or {}).items():
        key = "base" if trains_sft(config, model) else "sft_checkpoint"
        reference = model_reference(model_config[key], places)
        if reference.kind == "hub":
            items.append(HubItem(("models", model, key), reference.value, "model", MODEL_FILES))
    for role, entry in (config.get("data") or {}).items():
        source = SOURCES.get(entry.get("source", "bundled")) if role != "sft" else None
        if source is None or source.hub_files is None or entry.get("data_dir"):
            continue
        repo, files = source.hub_files(entry)
        items.append(HubItem(("data", role), repo, "dataset", tuple(files)))
    unique: dict[tuple[str, str, tuple[str, ...]], HubItem] = {}
    for item in items:
        unique.setdefault((item.repo, item.kind, item.patterns), item)
    return list(unique.values())


@dataclass(frozen=True)
class PrefetchRow:
    item: HubItem
    state: str  # cached | fetched | to fetch | unknown
    bytes: int | None
    note: str = ""


def prefetch(config: dict, places: Places, dry_run: bool = False, progress=None) -> list[PrefetchRow]:
    """Fetch what the cache lacks (with `dry_run`, only say what that would be: sizes from
    the Hub when it answers). `progress(item)` is called before each fetch."""
    rows = []
    for item in hub_items(config, places):
        folder = item.cached()
        if folder is not None:
            rows.append(PrefetchRow(item, "cached", folder_bytes(folder)))
        elif dry_run:
            try:
                rows.append(PrefetchRow(item, "to fetch", item.size_on_hub()))
            except Exception as error:
                rows.append(PrefetchRow(item, "to fetch", None,
                                        f"size unknown: {type(error).__name__}: {error}"))
        else:
            if progress is not None:
                progress(item)
            rows.append(PrefetchRow(item, "fetched", folder_bytes(item.fetch())))
    return rows


def prefetch_table(rows: list[PrefetchRow]) -> str:
    """The rows as a Markdown table, with the total."""
    from codefrontier.pipeline.configfiles import key_path

    lines = ["| config key | repository | kind | state | size |", "|---|---|---|---|---|"]
    for row in rows:
        size = human_bytes(row.bytes) if row.bytes is not None else "?"
        lines.append(f"| {key_path(row.item.where)} | {row.item.repo} | {row.item.kind} | "
                     f"{row.state} | {size}{' (' + row.note + ')' if row.note else ''} |")
    known = sum(row.bytes or 0 for row in rows)
    lines.append(f"\n{len(rows)} repositories, {human_bytes(known)} in all"
                 + (" (some sizes unknown)" if any(r.bytes is None for r in rows) else ""))
    return "\n".join(lines)


def human_bytes(count: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if abs(count) < 1000 or unit == "PB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} PB"
