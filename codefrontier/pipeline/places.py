"""Where the paths a config names are, and what a model reference is.

A relative path in a config (`rl.accelerate_config`, a data entry's `data_dir`, a model's
`base` or `sft_checkpoint` folder) is looked up in the run's working directory first, as
Snakemake looks up every relative path, then in the checkout (the folder of the
Snakefile), so that `configs/accelerate/zero3.yaml` names the checkout's file from a run
folder made with `-d`. The config keeps the path as written (its provenance does not
depend on where the checkout is); only the commands get the resolved path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from codefrontier.base.layout import RESULTS

EMBEDDED = "embedded"  # a model built here by `codefrontier model init`
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")  # organisation/name


@dataclass(frozen=True)
class Places:
    workdir: Path
    checkout: Path

    @classmethod
    def here(cls) -> Places:
        """The current folder, and the checkout this package was installed from (or the
        current folder for an installed package)."""
        package_root = Path(__file__).resolve().parents[2]
        checkout = package_root if (package_root / "Snakefile").is_file() else Path.cwd()
        return cls(Path.cwd(), checkout)

    def find(self, value: str | os.PathLike) -> str | None:
        """The path as a job in the working directory reaches it (relative when it is
        under the working directory, absolute in the checkout), or None."""
        path = Path(os.path.expanduser(str(value)))
        if path.is_absolute():
            return str(path) if path.exists() else None
        if (self.workdir / path).exists():
            return str(value)
        if (self.checkout / path).exists():
            return str(self.checkout / path)
        return None

    def resolve(self, value: str) -> str:
        """`find`, or the value as written when it names nothing (a hub id, or a path
        that the plan-time checks report)."""
        return self.find(value) or value

    def searched(self, value: str) -> str:
        """Where `find` looked, for messages."""
        if Path(value).is_absolute():
            return value
        return f"{self.workdir / value} or {self.checkout / value}"


@dataclass(frozen=True)
class ModelReference:
    """What a model key names: `embedded`, a local `folder` (made by a rule, or on disk),
    a `hub` repository, or nothing that exists (`missing`)."""

    kind: str
    value: str  # the folder as a job reaches it, or the hub id, or the value as written


def model_reference(value: str, places: Places) -> ModelReference:
    if value == EMBEDDED:
        return ModelReference("embedded", value)
    if value.startswith(RESULTS + "/"):
        return ModelReference("folder", value)
    found = places.find(value)
    if found is not None:
        return ModelReference("folder", found)
    if HUB_ID.match(value) and not value.startswith("."):
        return ModelReference("hub", value)
    return ModelReference("missing", value)
