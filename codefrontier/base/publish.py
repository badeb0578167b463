"""Publishing a folder by rename: an output is written under a temporary name beside
its final place and renamed into place only once complete, so a killed step leaves
nothing that looks finished (Snakemake, and any reader, sees the folder or nothing).

The temporary name is `.NAME.tmp-TAG`, TAG the writing process's id unless the
caller gives one (distributed training: every rank must agree on the name).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def temporary_beside(out: str | os.PathLike, tag: str | int | None = None) -> Path:
    out = Path(out)
    return out.with_name(f".{out.name}.tmp-{os.getpid() if tag is None else tag}")


def publish(tmp: Path, out: str | os.PathLike) -> Path:
    """Move a completed temporary folder into place, replacing what was there."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out


@contextmanager
def publishing(out: str | os.PathLike, tag: str | int | None = None) -> Iterator[Path]:
    """An empty temporary folder to write `out` into; published when the block ends,
    deleted if it raises."""
    tmp = temporary_beside(out, tag)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    publish(tmp, out)
