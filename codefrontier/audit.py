"""`codefrontier audit TARGET`: walk an output's provenance and report what is off.

For the target and, recursively, every input it names:
- an input whose content changed after it was used (sha256 differs; hashed
  afresh, not from the cache), or that is gone;
- an output without provenance;
- an output made by other code (code version) than the current package;
- an output made from another config slice than the current config gives it
  (when the record names its rule and the current config is given).
Exit status 1 when anything is reported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from codefrontier.provenance import code_version, content_sha256, read_provenance


@dataclass(frozen=True)
class Finding:
    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


def audit(target: str | os.PathLike, config: dict | None = None) -> tuple[list[Finding], int]:
    """Findings, and how many outputs were checked."""
    findings: list[Finding] = []
    seen: set[str] = set()
    pending = [Path(target).resolve()]
    current = code_version()
    while pending:
        path = pending.pop()
        if str(path) in seen:
            continue
        seen.add(str(path))
        if not path.exists():
            findings.append(Finding(str(path), "missing"))
            continue
        provenance = read_provenance(path)
        if provenance is None:
            if path.is_dir() or path.suffix == ".parquet":
                findings.append(Finding(str(path), "no provenance"))
            continue  # other inputs (a dataset folder, a config file) are leaves
        if provenance.get("code_version") != current:
            findings.append(Finding(str(path), f"made by code {provenance.get('code_version')}, "
                                               f"current code is {current}"))
        findings += _config_findings(path, provenance, config)
        for item in provenance.get("inputs", []):
            source = Path(item["path"])
            if not source.exists():
                findings.append(Finding(str(path), f"input {source} is missing"))
                continue
            if content_sha256(source, cached=False) != item["sha256"]:
                findings.append(Finding(str(path), f"input {source} changed after it was used"))
            pending.append(source)
    return findings, len(seen)


def _config_findings(path: Path, provenance: dict, config: dict | None) -> list[Finding]:
    used = provenance.get("config")
    if config is None or not used or "rule" not in used:
        return []
    from codefrontier.workflow import config_slice

    try:
        expected = config_slice(config, used["rule"], **used.get("wildcards", {}))
    except KeyError as error:
        return [Finding(str(path), f"its config entry {error} is no longer in the config")]
    if expected != used.get("slice"):
        return [Finding(str(path), f"made with another config for rule {used['rule']!r} than the "
                                   f"current one")]
    return []
