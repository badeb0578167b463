"""Reading data files through `datasets`, from the Hugging Face Hub or a local copy."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path


class DatasetUnavailable(RuntimeError):
    """The data could not be read: no network, no cache, or a wrong local folder."""


def data_file_urls(repo: str, files: list[str], data_dir: str | os.PathLike | None) -> list[str]:
    """Local paths under `data_dir` (the repository's layout), else hf:// URLs.

    Names may be glob patterns (`ccplus_1x/*.parquet`); local ones are expanded
    here, in sorted order, and the Hub resolves its own.
    """
    if data_dir is None:
        return [f"hf://datasets/{repo}/{name}" for name in files]
    folder = Path(data_dir)
    found, missing = [], []
    for name in files:
        matches = sorted(folder.glob(name)) if glob.has_magic(name) else [folder / name]
        matches = [path for path in matches if path.exists()]
        found += matches
        if not matches:
            missing.append(name)
    if missing:
        raise DatasetUnavailable(f"{folder}: missing {', '.join(missing)} (expected the layout "
                                 f"of the {repo} repository)")
    return [str(path) for path in found]


def read_rows(builder: str, files: list[str], repo: str, streaming: bool,
              cache_dir: str | None) -> Iterable[dict]:
    """Rows of json or parquet data files; streamed when asked (large datasets)."""
    from datasets import load_dataset

    try:
        dataset = load_dataset(builder, data_files=files, split="train", streaming=streaming,
                               cache_dir=cache_dir)
        yield from dataset
    except (ConnectionError, OSError, ValueError) as error:
        hint = ("it is not in the local cache and the Hub cannot be reached"
                if any(f.startswith("hf://") for f in files) else "the local files cannot be read")
        raise DatasetUnavailable(
            f"cannot load {repo}: {hint} ({type(error).__name__}: {error}). Download the "
            f"repository's files on a machine with network access and pass --data-dir.") from error
