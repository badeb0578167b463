"""`codefrontier audit TARGET`: walk an output's provenance and report what is off.

For the target and, recursively, every input it names:
- an input whose content changed after it was used (sha256 differs; hashed
  afresh, not from the cache), or that is gone (a merged folder that the run did not
  keep is checked against its record instead: layout.MERGE_RECORD);
- an output without provenance, or whose provenance cannot be read (a damaged
  parquet, a provenance.json that is not JSON);
- an output made by other code (code version) than the current package;
- an output made from another config slice than the current config gives it
  (when the record names its rule and the current config is given).
Exit status 1 when anything is reported.

Apart from these, and informational only (they leave the exit status alone): an output
made on another kind of processor than this machine (its record's `machine`: cpu model,
instruction sets, PyTorch's cpu capability) or with other library versions than this
machine has. Its numbers are right; they just need not equal this machine's bit for bit.

Input paths recorded relative to the workflow root are looked up under `root`
(default: the current directory), so a copied or moved results tree is checked
against its own files; absolute ones are checked where they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from codefrontier.base.kernels import KERNEL_VARIABLES
from codefrontier.base.layout import MERGE_FOLDER, MERGE_RECORD
from codefrontier.base.provenance import (
    RECORDED_LIBRARIES,
    UnreadableProvenance,
    code_version,
    content_sha256,
    library_versions,
    machine,
    read_provenance,
    resolve_recorded_path,
)

# the kinds of finding: something is off (exit status 1), or the output was made on
# another processor or with other library versions (informational)
OFF = "off"
ELSEWHERE = "made elsewhere"


@dataclass(frozen=True)
class Finding:
    path: str
    problem: str
    kind: str = OFF

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


def audit(target: str | os.PathLike, config: dict | None = None,
          root: str | os.PathLike | None = None) -> tuple[list[Finding], int]:
    """Findings (of kind OFF, and the informational ELSEWHERE), and how many outputs
    were checked. `root` is where root-relative input paths are looked up (default: the
    current directory)."""
    root = Path(root) if root is not None else Path.cwd()
    findings: list[Finding] = []
    seen: set[Path] = set()
    pending = [Path(os.path.abspath(target))]
    current = code_version()
    here = Here(machine(), library_versions())
    while pending:
        path = pending.pop()
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        if not path.exists():
            findings.append(Finding(str(path), "missing"))
            continue
        try:
            provenance = read_provenance(path)
        except UnreadableProvenance as error:
            findings.append(Finding(str(error.path), f"unreadable: {error.reason}"))
            continue
        if provenance is None:
            if path.is_dir() or path.suffix == ".parquet":
                findings.append(Finding(str(path), "no provenance"))
            continue  # other inputs (a dataset folder, a config file) are leaves
        if provenance.get("code_version") != current:
            findings.append(Finding(str(path), f"made by code {provenance.get('code_version')}, "
                                               f"current code is {current}"))
        findings += _config_findings(path, provenance, config)
        findings += _elsewhere_findings(path, provenance, here)
        findings += _kernel_findings(path, provenance, config)
        for item in provenance.get("inputs") or []:
            finding, source = _input_finding(path, item, root)
            if finding:
                findings.append(finding)
            if source:
                pending.append(source)
    return findings, len(seen)


def _input_finding(path: Path, item: object, root: Path) -> tuple[Finding | None, Path | None]:
    """What is off with one recorded input of `path`, and the input to walk into next."""
    if not isinstance(item, dict) or not isinstance(item.get("path"), str) \
            or "sha256" not in item:
        return Finding(str(path), f"input entry {item!r} lacks a path or sha256"), None
    source = resolve_recorded_path(item, root)
    if not source.exists():
        kept = merge_record_of(source)
        if kept is not None:
            return _through_record(path, source, item, kept)
        return Finding(str(path), f"input {source} is missing"), None
    try:
        digest = content_sha256(source, cached=False)
    except OSError as error:
        return Finding(str(path), f"input {source} cannot be hashed: {error}"), None
    if digest != item["sha256"]:
        return Finding(str(path), f"input {source} changed after it was used"), source
    return None, source


def merge_record_of(folder: Path) -> Path | None:
    """The record beside a merged folder (layout.MERGE_RECORD), when there is one."""
    if MERGE_FOLDER.parse(folder) is None:
        return None
    record = MERGE_FOLDER.counterpart(folder, MERGE_RECORD)
    return record if record.is_file() else None


def _through_record(path: Path, folder: Path, item: dict,
                    record: Path) -> tuple[Finding | None, Path | None]:
    """A merged folder that was not kept (`keep.merges: false`): what was used is checked
    against its record's content hash, and the walk goes on into the record (whose
    inputs are the merge's parents)."""
    try:
        kept = read_provenance(record) or {}
    except UnreadableProvenance as error:
        return Finding(str(error.path), f"unreadable: {error.reason}"), None
    if kept.get("checkpoint_sha256") != item["sha256"]:
        return Finding(str(path), f"input {folder} is gone and its record {record} names "
                                  f"other weights than the ones used"), None
    return None, record


@dataclass(frozen=True)
class Here:
    """This machine's processor (provenance.machine) and library versions
    (provenance.library_versions), as records name them."""

    machine: dict
    versions: dict


# what a record's `machine` entry says about the kernels math libraries choose
PROCESSOR_KEYS = ("arch", "cpu", "isa", "torch_cpu_capability")


def other_processor(made_on: dict, other: dict) -> bool:
    """Whether two `machine` entries name another kind of processor: an entry both name
    differs (a process that never loaded PyTorch names no torch_cpu_capability)."""
    return any(made_on.get(key) != other.get(key) for key in PROCESSOR_KEYS
               if key in made_on and key in other)


def describe_machine(entry: dict) -> str:
    """A `machine` entry in a few words: 'AMD EPYC 7763 [avx2, fma], torch AVX2'."""
    text = f"{entry.get('cpu') or entry.get('arch') or 'an unnamed processor'} " \
           f"[{', '.join(entry.get('isa') or [])}]"
    capability = entry.get("torch_cpu_capability")
    return f"{text}, torch {capability}" if capability else text


def other_versions(record: dict, other: dict, names=RECORDED_LIBRARIES) -> list[str]:
    """'torch 2.13.0 vs 2.12.0' for each of `names` whose version (`<name>_version`) both
    records name and that differs."""
    keys = [(name, f"{name}_version") for name in names]
    return [f"{name} {record[key]} vs {other[key]}" for name, key in keys
            if key in record and key in other and record[key] != other[key]]


def _elsewhere_findings(path: Path, provenance: dict, here: Here) -> list[Finding]:
    """An output made on another kind of processor, or with other library versions, than
    this machine has: informational findings (kind ELSEWHERE)."""
    findings = []
    made_on = provenance.get("machine")
    if isinstance(made_on, dict) and other_processor(made_on, here.machine):
        findings.append(Finding(str(path), f"made on another processor: "
                                           f"{describe_machine(made_on)} vs this machine's "
                                           f"{describe_machine(here.machine)}", ELSEWHERE))
    versions = other_versions(provenance, here.versions)
    if versions:
        findings.append(Finding(str(path), f"made with other library versions: "
                                           f"{', '.join(versions)}", ELSEWHERE))
    return findings


def _kernel_findings(path: Path, provenance: dict, config: dict | None) -> list[Finding]:
    """An output computed with other kernel settings than the config's `kernels` mode
    sets (informational, kind ELSEWHERE; records older than the mode name none)."""
    made_on = provenance.get("machine")
    if config is None or not isinstance(made_on, dict) or "kernels" not in made_on:
        return []
    from codefrontier.pipeline.workflow import job_environment

    wanted = job_environment(config)
    expected = {name: wanted[name] for name in KERNEL_VARIABLES if name in wanted}
    if made_on["kernels"] == expected:
        return []
    return [Finding(str(path), f"made with other kernels: {made_on['kernels'] or 'native'} "
                               f"where the config's `kernels` sets {expected or 'none'}",
                    ELSEWHERE)]


def _config_findings(path: Path, provenance: dict, config: dict | None) -> list[Finding]:
    used = provenance.get("config")
    if config is None or not used or "rule" not in used:
        return []
    from codefrontier.pipeline.workflow import config_slice

    try:
        expected = config_slice(config, used["rule"], **used.get("wildcards", {}))
    except KeyError as error:
        return [Finding(str(path), f"its config entry {error} is no longer in the config")]
    if expected != used.get("slice"):
        return [Finding(str(path), f"made with another config for rule {used['rule']!r} than the "
                                   f"current one")]
    return []


def audit_report(target: str | os.PathLike, config_files: list[str | os.PathLike] | None = None,
                 root: str | os.PathLike = ".") -> tuple[list[Finding], str]:
    """`codefrontier audit`: the findings for `target` against the run's config (composed
    from `config_files` as the workflow composes its --configfile files), and a summary
    line."""
    from codefrontier.pipeline.configfiles import compose

    if not os.path.isdir(root):
        raise FileNotFoundError(f"--root {root} is not a directory: give the folder the "
                                f"workflow ran in (the one that holds results/)")
    config = compose(config_files, default=config_files[0]).values if config_files else None
    findings, checked = audit(target, config, root=root)
    off = sum(finding.kind == OFF for finding in findings)
    elsewhere = len({finding.path for finding in findings if finding.kind == ELSEWHERE})
    plural = "s" if off != 1 else ""
    summary = f"audited {checked} outputs and inputs from {target}: {off or 'no'} finding{plural}"
    if elsewhere:
        summary += (f"; {elsewhere} output{'s' if elsewhere != 1 else ''} made on another "
                    f"processor or with other library versions (informational)")
    return findings, summary

