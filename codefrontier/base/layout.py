"""Checkpoint names and the results layout: the one definition of both that the
Snakefile, the workflow, the tables and the CLI share.

A checkpoint of the grid is named

* ``sft``: the SFT policy every RL run starts from;
* ``rl-<reward>``: the GRPO run under that reward (``rl-k2``, ``rl-kinf``, ...), or the
  repair-training run under it (``rl-repair-kinf``: train/repair.py);
* ``a<alpha>``: the merge θ_α = α·θ_high + (1−α)·θ_low (``a-0.5``, ``a0.25``, ``a2``).
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from codefrontier.rewards import reward_family, reward_pattern, tests_needed

SFT = "sft"
RL_PREFIX = "rl-"
ALPHA_PREFIX = "a"
KINDS = ("sft", "rl", "merge")
# Snakemake wildcard constraints (regular expressions)
ALPHA_PATTERN = r"-?[0-9.]+(e-?[0-9]+)?"
REPAIR_PREFIX = "repair-"  # a repair-training run's reward: repair-kinf, repair-k3
# a run: a registered reward, or repair training under a nested one (rewards.REWARDS)
REWARD_PATTERN = rf"({REPAIR_PREFIX})?({reward_pattern(nested=True)})|{reward_pattern(nested=False)}"
# results/plots/<chart>.png and .html (plots.py draws them; rules all and plots)
CHARTS = ("frontier", "outcome_mix", "pass_at_k", "format_causes")
NAME_PATTERN = rf"{SFT}|{RL_PREFIX}[^/]+|{ALPHA_PREFIX}{ALPHA_PATTERN}"


RESULTS = "results"

# A grid repeated over seeds (config `seeds`) trains and evaluates each model once per
# seed: a run. The first seed's run keeps the model's own folder (results/<model>), so a
# one-seed grid's paths do not change and a grid extended by seeds keeps what it has;
# seed N's run is results/<model>@seed<N>. Every run of a model starts from its one SFT
# checkpoint (results/<model>/sft): seeds repeat RL, merges and sampling.
SEED_MARK = "@seed"


def run_name(model: str, seed: int, first_seed: int) -> str:
    """The run of `model` under `seed` (the model itself under the first seed)."""
    return model if seed == first_seed else f"{model}{SEED_MARK}{seed}"


def split_run(run: str) -> tuple[str, int | None]:
    """(model, seed) of a run name; the seed is None for the first seed's run, whose name
    is the model's."""
    model, mark, seed = run.partition(SEED_MARK)
    if not mark:
        return run, None
    if not re.fullmatch(r"-?[0-9]+", seed):
        raise ValueError(f"{run!r}: a seed replicate's run is <model>{SEED_MARK}<integer>")
    return model, int(seed)


def model_of(run: str) -> str:
    """The model a run trains (config `models.<name>`)."""
    return split_run(run)[0]


class PathTemplate(str):
    """A path of the results layout with `{wildcards}`: as a string it is a rule's input
    or output pattern; `fill` makes one path of it and `parse` takes one apart. Parsing
    looks at what follows the `results/` root, so a path of a copied results tree, under
    another name or an absolute path, parses too."""

    def fill(self, **wildcards: str) -> str:
        return self.format(**wildcards)

    def parse(self, path: str | os.PathLike) -> dict[str, str] | None:
        """The wildcards of `path`, or None when it does not follow this pattern."""
        match = _regex(self).search(Path(path).as_posix())
        return match.groupdict() if match else None

    def counterpart(self, path: str | os.PathLike, other: PathTemplate) -> Path:
        """The path `other` gives the wildcards of `path` (which follows this pattern),
        under the same root: the samples beside a verdicts file, its second attempts' verdicts."""
        posix = Path(path).as_posix()
        match = _regex(self).search(posix)
        if match is None:
            raise ValueError(f"{path}: expected {self}")
        root = posix[:match.start()]  # "" or up to and with the "/" after the root
        return Path(root + other.removeprefix(RESULTS + "/").format(**match.groupdict()))


@functools.cache
def _regex(template: str) -> re.Pattern:
    """What follows the root in a path of `template`, with a group per wildcard."""
    below_root = template.removeprefix(RESULTS + "/")
    parts = re.split(r"\{(\w+)\}", below_root)  # literal, name, literal, name, ...
    body = "".join(re.escape(part) if index % 2 == 0
                   else f"(?P<{part}>{WILDCARD_PATTERNS.get(part, '[^/]+')})"
                   for index, part in enumerate(parts))
    return re.compile(rf"(?:^|(?<=/)){body}$")  # starts at the path's start or after a "/"


# what a wildcard's value may be where it is not just one folder name (the Snakefile's
# wildcard constraints for these three)
WILDCARD_PATTERNS = {"ckpt": NAME_PATTERN, "alpha": ALPHA_PATTERN, "reward": REWARD_PATTERN}

# The results layout: every path the rules write, in one place. The Snakefile's rules use
# the patterns as they are; the workflow, the aggregates and the CLI fill and parse them.
DATA = PathTemplate(f"{RESULTS}/data/{{split}}.parquet")
INIT_FOLDER = PathTemplate(f"{RESULTS}/{{model}}/init")
SFT_FOLDER = PathTemplate(f"{RESULTS}/{{model}}/sft")
RL_FOLDER = PathTemplate(f"{RESULTS}/{{model}}/{{setting}}/rl/{{reward}}")
MERGE_FOLDER = PathTemplate(f"{RESULTS}/{{model}}/{{setting}}/merge/a{{alpha}}")
# a merge's record: its provenance and the content hash of the folder it made, kept when
# the folder is not (config `keep.merges: false`): the audit verifies through it, the
# claims read ‖θ_high − θ_low‖ from it, and `codefrontier merge` remakes the folder
MERGE_RECORD = PathTemplate(f"{RESULTS}/{{model}}/{{setting}}/merge/a{{alpha}}.json")
SAMPLES = PathTemplate(f"{RESULTS}/{{model}}/{{setting}}/{{ckpt}}/samples.parquet")
VERDICTS = PathTemplate(f"{RESULTS}/{{model}}/{{setting}}/{{ckpt}}/verdicts.parquet")
SECOND_ATTEMPT_SAMPLES = PathTemplate(
    f"{RESULTS}/{{model}}/{{setting}}/{{ckpt}}/second-attempt/samples.parquet")
SECOND_ATTEMPT_VERDICTS = PathTemplate(
    f"{RESULTS}/{{model}}/{{setting}}/{{ckpt}}/second-attempt/verdicts.parquet")
FRONTIER = f"{RESULTS}/frontier.parquet"
CLUSTERS = f"{RESULTS}/clusters.parquet"
ENSEMBLE = f"{RESULTS}/ensemble.parquet"
SECOND_ATTEMPT_TABLE = f"{RESULTS}/second_attempts.parquet"
CLAIMS = f"{RESULTS}/claims.md"
# touched when an aggregate table was made from other checkpoints than the config names
# (workflow.rerun_marker)
RERUN_MARKER = PathTemplate(f"{RESULTS}/.rerun/{{name}}")
PLOTS = f"{RESULTS}/plots"
CHART = PathTemplate(PLOTS + "/{chart}.png")
CHART_HTML = PathTemplate(PLOTS + "/{chart}.html")
# every SFT and GRPO run's figures per step, from its trainer's and reward's logs
# (train/training_log.py), and their charts: one per setting's GRPO runs, one of the SFT runs
TRAINING = f"{RESULTS}/training.parquet"
TRAINING_PLOTS = f"{PLOTS}/training"
SFT_CURVES = SFT  # the chart of the SFT runs, beside one per setting
TRAINING_CHART = PathTemplate(TRAINING_PLOTS + "/{curves}.png")
TRAINING_CHART_HTML = PathTemplate(TRAINING_PLOTS + "/{curves}.html")
# every checkpoint's samples as Inspect logs (`codefrontier export inspect`; not in rule all)
INSPECT_LOGS = f"{RESULTS}/inspect"
# one log per checkpoint, named so that a listing by name is in setting, then checkpoint
# order (inspect_log_name)
INSPECT_LOG = PathTemplate("{model}/{setting_rank}-{setting}/{ckpt_rank}-{ckpt}.eval")

# Each rule's log and Snakemake benchmark: LOGS/<job>.log and BENCHMARKS/<job>.tsv, the
# job named by the rule's wildcards (`codefrontier timings` reads the benchmarks)
LOGS = f"{RESULTS}/logs"
BENCHMARKS = f"{RESULTS}/benchmarks"
JOBS = {
    "problems": "problems/{split}",
    "sft_data": "sft_data",
    "model_init": "model_init/{model}",
    "sft": "sft/{model}",
    "rl": "rl/{model}-{setting}-{reward}",
    "merge": "merge/{model}-{setting}-a{alpha}",
    "sample": "sample/{model}-{setting}-{ckpt}",
    "judge": "judge/{model}-{setting}-{ckpt}",
    "second_attempt": "second_attempt/{model}-{setting}-{ckpt}",
    "judge_second_attempt": "judge/{model}-{setting}-{ckpt}-second-attempt",
    "frontier": "frontier",
    "ensemble": "ensemble",
    "plots": "plots",
    "claims": "claims",
    "second_attempt_table": "second_attempt_table",
    "training": "training",
    "training_plots": "training_plots",
    "inspect_logs": "inspect_logs",
}


def log(rule: str) -> str:
    """A rule's log file pattern."""
    return f"{LOGS}/{JOBS[rule]}.log"


def benchmark(rule: str) -> str:
    """A rule's benchmark file pattern (Snakemake's `benchmark:`)."""
    return f"{BENCHMARKS}/{JOBS[rule]}.tsv"


def trained_folder(path: str | os.PathLike) -> dict[str, str] | None:
    """The model, setting and checkpoint name of an RL run's or a merge's folder
    (RL_FOLDER, MERGE_FOLDER) or of a merge's record (MERGE_RECORD), or None for any
    other path."""
    run = RL_FOLDER.parse(path)
    if run is not None:
        return {"model": run["model"], "setting": run["setting"], "ckpt": rl_name(run["reward"])}
    merge = MERGE_FOLDER.parse(path) or MERGE_RECORD.parse(path)
    if merge is not None:
        return {"model": merge["model"], "setting": merge["setting"],
                "ckpt": ALPHA_PREFIX + merge["alpha"]}
    return None


def second_attempt_verdicts_path(first: str | os.PathLike) -> Path:
    """Where the second attempts' verdicts of a checkpoint's first attempts (VERDICTS)
    lie: SECOND_ATTEMPT_VERDICTS, under the same root."""
    return VERDICTS.counterpart(first, SECOND_ATTEMPT_VERDICTS)


def first_verdicts_path(second: str | os.PathLike) -> Path:
    """The first attempts' verdicts of the second attempts' verdicts `second`
    (second_attempt_verdicts_path)."""
    return SECOND_ATTEMPT_VERDICTS.counterpart(second, VERDICTS)


def format_alpha(alpha: float) -> str:
    """The α in a checkpoint name: -0.5, 0, 1.5 (shortest round-trip form)."""
    if not math.isfinite(alpha):
        raise ValueError(f"α must be finite, got {alpha}")
    text = repr(float(alpha))
    return text[:-2] if text.endswith(".0") else text


def rl_name(reward: str) -> str:
    return f"{RL_PREFIX}{reward}"


def repair_run(reward: str) -> str:
    """The run name of repair training under `reward` (a nested reward k<number>, kinf)."""
    return f"{REPAIR_PREFIX}{reward}"


def trained_reward(run: str) -> tuple[str, bool]:
    """A run name's reward and whether it is a repair-training run: repair-kinf ->
    (kinf, True), k2 -> (k2, False)."""
    if run.startswith(REPAIR_PREFIX):
        return run.removeprefix(REPAIR_PREFIX), True
    return run, False


def alpha_name(alpha: float) -> str:
    return f"{ALPHA_PREFIX}{format_alpha(alpha)}"


@dataclass(frozen=True)
class CheckpointName:
    """A parsed checkpoint name: its kind, and the reward (rl) or α (merge)."""

    name: str
    kind: str
    reward: str | None = None
    alpha: float | None = None

    @classmethod
    def parse(cls, name: str) -> CheckpointName:
        if name == SFT:
            return cls(name, "sft")
        if name.startswith(RL_PREFIX) and len(name) > len(RL_PREFIX) and "/" not in name:
            return cls(name, "rl", reward=name.removeprefix(RL_PREFIX))
        if re.fullmatch(ALPHA_PREFIX + ALPHA_PATTERN, name):
            try:
                alpha = float(name.removeprefix(ALPHA_PREFIX))
            except ValueError:
                alpha = math.nan
            if math.isfinite(alpha):
                return cls(name, "merge", alpha=alpha)
        raise ValueError(f"{name!r} is not a checkpoint name: expected {SFT}, "
                         f"{RL_PREFIX}<reward> or {ALPHA_PREFIX}<alpha>")

    @staticmethod
    def is_valid(name: str) -> bool:
        try:
            CheckpointName.parse(name)
        except ValueError:
            return False
        return True


def checkpoint_order(name: str) -> tuple:
    """A sort key: sft, the RL runs (the nested R_k by k, then the other rewards, then
    repair training), then the merges by α."""
    parsed = CheckpointName.parse(name)
    if parsed.kind == "merge":
        return (2, 0, parsed.alpha, name)
    if parsed.kind == "rl":
        run, repair = trained_reward(parsed.reward)
        nested = reward_family(run).nested
        return (1, 2 if repair else 0 if nested else 1, tests_needed(run)[0] if nested else 0,
                name)
    return (0, 0, 0, name)


def merge_alpha(name: str) -> float | None:
    """The α of a merge checkpoint's name; None for any other name."""
    return CheckpointName.parse(name).alpha if CheckpointName.is_valid(name) else None
