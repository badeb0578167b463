"""The Hugging Face Hub: whether it may be reached, what its cache holds, fetching a
repository into the cache, and reading data files through `datasets` from the Hub, its
cache or a local copy.

The Hub is off when HF_HUB_OFFLINE is true in the environment (the config's `environment`
block can set it for every job); the cache is huggingface_hub's (HF_HUB_CACHE, else
HF_HOME/hub, else ~/.cache/huggingface/hub), read from the environment at each call, so a
variable the config sets counts.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path

TRUE_WORDS = {"1", "ON", "YES", "TRUE"}  # huggingface_hub's reading of a boolean variable
# the files of a model repository that loading a model with transformers or vLLM reads
# (a repository may also hold the same weights as .bin, .pth, .gguf or ONNX files)
MODEL_FILES = ("*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "*.jinja",
               "tokenizer*")


def hub_is_off() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in TRUE_WORDS


def hub_cache_dir() -> Path:
    """Where huggingface_hub keeps repositories, by the environment as it is now."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.path.expanduser(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HUGGINGFACE_HUB_CACHE"):
        return Path(os.path.expanduser(os.environ["HUGGINGFACE_HUB_CACHE"]))
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface")
    return Path(os.path.expanduser(home)) / "hub"


def cached_snapshot(repo: str, repo_type: str, patterns: Iterable[str] | None = None) -> Path | None:
    """The cached snapshot folder of a repository's main revision, None when the cache has
    no snapshot of it (whatever the Hub's state: nothing is downloaded)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        folder = snapshot_download(repo, repo_type=repo_type, cache_dir=hub_cache_dir(),
                                   allow_patterns=list(patterns) if patterns else None,
                                   local_files_only=True)
    except (LocalEntryNotFoundError, FileNotFoundError, OSError):
        return None
    return Path(folder)


def fetch_snapshot(repo: str, repo_type: str, patterns: Iterable[str] | None = None) -> Path:
    """Download a repository's main revision (the files matching `patterns`) into the
    cache, resuming what an earlier fetch left; the snapshot folder."""
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo, repo_type=repo_type, cache_dir=hub_cache_dir(),
                                  allow_patterns=list(patterns) if patterns else None))


def folder_bytes(folder: str | os.PathLike) -> int:
    """The bytes of every file under a folder, links followed (a snapshot's files are
    links into the cache's blobs)."""
    return sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())


def model_folder_is_complete(folder: str | os.PathLike) -> bool:
    """A model folder with its config and every weight file its index names."""
    import json

    folder = Path(folder)
    if not (folder / "config.json").is_file():
        return False
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        shards = set(json.loads(index.read_text()).get("weight_map", {}).values())
        return all((folder / shard).is_file() for shard in shards)
    return any(folder.glob("*.safetensors"))


class DatasetUnavailable(RuntimeError):
    """The data could not be read: no network, no cache, or a wrong local folder."""


def data_file_urls(repo: str, files: list[str], data_dir: str | os.PathLike | None) -> list[str]:
    """Local paths under `data_dir` (the repository's layout), else under the Hub cache's
    snapshot of the repository when it holds them (`codefrontier prefetch`), else hf://
    URLs.

    Names may be glob patterns (`ccplus_1x/*.parquet`); local ones are expanded
    here, in sorted order, and the Hub resolves its own.
    """
    if data_dir is None:
        snapshot = cached_snapshot(repo, "dataset", files)
        if snapshot is not None and all(_matches(snapshot, name) for name in files):
            data_dir = snapshot
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
            f"cannot load {repo}: {hint} ({type(error).__name__}: {error}). Fetch it into the "
            f"cache on a machine with network access (`codefrontier prefetch --configfile "
            f"...`), or download the repository's files and pass --data-dir.") from error


def _matches(folder: Path, name: str) -> bool:
    return any(folder.glob(name)) if glob.has_magic(name) else (folder / name).exists()
