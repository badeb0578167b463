"""Which files make a run's config, how they combine, and what is wrong with it.

Two kinds of config file:

* a **grid** holds every required key (GRID_KEYS) and stands on its own
  (`config.yaml`, `configs/qwen2.5-7b.yaml`);
* an **overlay** names the file it changes with `extends: PATH` (relative to the overlay's
  own folder) and holds only what it changes (`configs/tiny-findings.yaml` extends
  `../config.yaml`).

The files given on the command line are read in order, each overlay after the files it
extends (a file reached twice is read once), and merged as Snakemake merges config files:
mappings key by key, anything else (lists included) replaced. Several grids given together
are one grid (the 7B and 32B files: both models). The checkout's `config.yaml` is read only
when no file is given, or when an overlay extends it: a run never gains a model or a
setting from a file the user did not name, directly or through `extends`.

Validation against `config.schema.yaml` reports each problem as its key path first, with a
close match for a misspelled key or value and the file the key came from, never the
schema itself.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

GRID_KEYS = ("data", "models", "settings", "sampling")  # config.schema.yaml's required keys
EXTENDS = "extends"
SCHEMA_FILE = "config.schema.yaml"
DEFAULT_FILE = "config.yaml"
MAX_REPORTED = 8  # problems listed before "... and N more"


class ConfigError(ValueError):
    """A config that cannot run: the message names the key and the fix."""


@dataclass(frozen=True)
class Layer:
    """One config file as read: its values (without `extends`) and what it extends."""

    path: Path
    values: dict
    extends: Path | None = None

    @property
    def kind(self) -> str:
        return "overlay" if self.extends else "grid"


@dataclass(frozen=True)
class RunConfig:
    """The merged config and the files it came from, in the order they were merged."""

    values: dict
    layers: tuple[Layer, ...]
    overrides: Mapping[str, Any]

    def describe(self, relative_to: str | Path | None = None) -> str:
        """One line: which files made the config, e.g. `config: config.yaml (grid) +
        configs/tiny-findings.yaml (overlay of config.yaml)`."""
        def name(path: Path) -> str:
            return _shown(path, relative_to)

        parts = [f"{name(layer.path)} ({layer.kind}"
                 + (f" of {name(layer.extends)})" if layer.extends else ")")
                 for layer in self.layers]
        if self.overrides:
            parts.append("--config " + " ".join(f"{k}={v}" for k, v in self.overrides.items()))
        return "config: " + " + ".join(parts)

    def origin(self, key_path: Sequence[str | int]) -> Path | None:
        """The last file that sets `key_path` (the one whose value the run uses)."""
        for layer in reversed(self.layers):
            if _lookup(layer.values, key_path) is not _ABSENT:
                return layer.path
        return None


def _shown(path: Path, relative_to: str | Path | None) -> str:
    if relative_to is not None:
        try:
            return str(path.relative_to(Path(relative_to).resolve()))
        except ValueError:
            pass
    return str(path)


def merge_into(target: dict, changes: Mapping) -> dict:
    """Snakemake's config merge: mappings key by key, every other value replaced."""
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            merge_into(target[key], value)
        else:
            target[key] = _copy(value)
    return target


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def read_file(path: str | Path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        values = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML ({error})") from error
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of keys, "
                          f"not a {type(values).__name__}")
    return values


def read_layers(path: str | Path, chain: tuple[Path, ...] = ()) -> list[Layer]:
    """A file's layers: what it extends (recursively), then the file itself."""
    path = Path(path).resolve()
    if path in chain:
        cycle = " -> ".join(str(p) for p in (*chain, path))
        raise ConfigError(f"{path}: `{EXTENDS}` goes round in a circle ({cycle})")
    values = read_file(path)
    base = values.pop(EXTENDS, None)
    if base is None:
        missing = [key for key in GRID_KEYS if key not in values]
        if missing:
            raise ConfigError(
                f"{path}: neither a grid nor an overlay: a grid holds every one of "
                f"{', '.join(GRID_KEYS)} (this file lacks {', '.join(missing)}); an overlay "
                f"names the config it changes with `{EXTENDS}: PATH` (e.g. "
                f"`{EXTENDS}: ../config.yaml`, relative to the overlay)")
        return [Layer(path, values)]
    if not isinstance(base, str) or not base:
        raise ConfigError(f"{path}: `{EXTENDS}` must be the path of a config file")
    base_path = (path.parent / base).resolve()
    if not base_path.is_file():
        raise ConfigError(f"{path}: `{EXTENDS}: {base}` names no file ({base_path} does not "
                          f"exist; the path is relative to the overlay's own folder)")
    return [*read_layers(base_path, (*chain, path)), Layer(path, values, base_path)]


def compose(files: Iterable[str | Path], default: str | Path,
            overrides: Mapping[str, Any] | None = None) -> RunConfig:
    """The run's config from the command line's files (the default file when none), then
    the command line's `--config` values."""
    files = list(files) or [default]
    layers: list[Layer] = []
    for path in files:
        for layer in read_layers(path):
            if all(layer.path != seen.path for seen in layers):
                layers.append(layer)
    _check_no_grid_joins_unnamed(files, layers)
    values: dict = {}
    for layer in layers:
        merge_into(values, layer.values)
    overrides = {key: typed_override(value) if isinstance(value, (list, dict)) else value
                 for key, value in (overrides or {}).items()}
    merge_into(values, overrides)
    return RunConfig(values, tuple(layers), overrides)


def typed_override(value: Any) -> Any:
    """A `--config` list or mapping with YAML's scalar types, as in a config file:
    Snakemake reads `seeds=[0,1]` with YAML's base loader, every scalar a string ('0',
    '1'), while it reads a bare `seed=1` as an integer."""
    if isinstance(value, list):
        return [typed_override(item) for item in value]
    if isinstance(value, dict):
        return {key: typed_override(item) for key, item in value.items()}
    if isinstance(value, str):
        return yaml.safe_load(value) if value.strip() else value
    return value


def _check_no_grid_joins_unnamed(files: list, layers: list[Layer]) -> None:
    """A grid joins the run when the command line names it, or as the base of the
    overlays when it names no grid. `--configfile configs/qwen2.5-7b.yaml
    configs/vllm-cpu.yaml` would otherwise bring config.yaml's tiny model into the 7B
    grid through vllm-cpu.yaml's `extends`."""
    named = {Path(path).resolve() for path in files}
    grids = [layer for layer in layers if layer.kind == "grid"]
    named_grids = [layer for layer in grids if layer.path in named]
    through_extends = [layer for layer in grids if layer.path not in named]
    if named_grids and through_extends:
        base = through_extends[0].path
        overlays = [str(layer.path) for layer in layers if layer.extends == base]
        raise ConfigError(
            f"{', '.join(overlays)} extends {base}, a grid of its own, and the command line "
            f"also names the grid {named_grids[0].path}: an overlay changes the grid it "
            f"extends. Name {base} on the command line too if both grids belong to the run, "
            f"or write an overlay that extends {named_grids[0].path.name}")


# --- validation --------------------------------------------------------------------------

_ABSENT = object()


def _lookup(values: Any, key_path: Sequence[str | int]) -> Any:
    for key in key_path:
        if (isinstance(values, Mapping) and key in values) or (isinstance(values, list) and isinstance(key, int) and key < len(values)):
            values = values[key]
        else:
            return _ABSENT
    return values


def key_path(parts: Iterable[str | int]) -> str:
    """`models.tiny.rl.rewards[1]`: a config key's path as the messages write it."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the config's top level)"


def close_match(word: str, choices: Iterable[str]) -> str:
    """`; did you mean 'x'?` when a choice is close to `word`, else ""."""
    found = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {found[0]!r}?" if found else ""


def load_schema(checkout: str | Path) -> dict:
    return yaml.safe_load((Path(checkout) / SCHEMA_FILE).read_text())


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config: where (a key path) and what."""

    where: tuple[str | int, ...]
    what: str

    def __str__(self) -> str:
        return f"{key_path(self.where)}: {self.what}"


def schema_problems(values: dict, schema: dict) -> list[Problem]:
    """Every schema violation: its key path, then what is wrong, with a close match for a
    misspelled key or value."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(values),
                    key=lambda e: [str(p) for p in e.absolute_path])
    return [problem for error in errors for problem in _describe(error)]


def _describe(error) -> list[Problem]:
    where = tuple(error.absolute_path)
    kind = error.validator
    if kind == "additionalProperties" and error.schema.get("properties") is not None:
        allowed = list(error.schema["properties"])
        return [Problem((*where, key), f"unknown key{close_match(key, allowed)} (allowed "
                                       f"here: {', '.join(allowed)})")
                for key in error.instance if key not in allowed]
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return [Problem(where, f"the required key {missing!r} is missing")]
    if kind == "enum":
        choices = [str(c) for c in error.validator_value]
        return [Problem(where, f"{error.instance!r} is not one of {', '.join(choices)}"
                               f"{close_match(error.instance, choices)}")]
    if kind == "propertyNames":
        names = (error.validator_value or {}).get("enum")
        hint = close_match(error.instance, names) if names else ""
        return [Problem((*where, error.instance), f"{error.message}{hint}")]
    return [Problem(where, error.message)]


def validate(run: RunConfig, checkout: str | Path) -> None:
    """Raise ConfigError listing the schema's complaints, each with the file it came from."""
    problems = schema_problems(run.values, load_schema(checkout))
    if problems:
        raise ConfigError(report(problems, run))


def report(problems: Sequence[Problem], run: RunConfig, what: str = "problem") -> str:
    """Problems as lines, each naming the file its key came from when the config has
    several files."""
    lines = []
    for problem in problems[:MAX_REPORTED]:
        origin = run.origin(problem.where) if len(run.layers) > 1 else None
        lines.append(f"{problem}" + (f" (set in {origin})" if origin else ""))
    if len(problems) > MAX_REPORTED:
        lines.append(f"... and {len(problems) - MAX_REPORTED} more")
    plural = "s" if len(problems) != 1 else ""
    return f"the config has {len(problems)} {what}{plural}:\n  " + "\n  ".join(lines)
