"""What the Snakefile needs from the library: names, paths and config slices.

The paths below are the contract between rules (design.md, "Targets").
`config_slice` says which part of the config a step depends on: the rules pass
it to each command (kept in the output's provenance), and `codefrontier audit`
compares it with what the current config gives.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

from codefrontier.base.kernels import DEFAULT_KERNELS, kernel_environment
from codefrontier.base.layout import (
    ALPHA_PREFIX,
    DATA,
    INIT_FOLDER,
    MERGE_FOLDER,
    MERGE_RECORD,
    RERUN_MARKER,
    RESULTS,
    RL_FOLDER,
    SFT,
    SFT_CURVES,
    SFT_FOLDER,
    VERDICTS,
    CheckpointName,
    alpha_name,
    model_of,
    repair_run,
    rl_name,
    run_name,
    second_attempt_verdicts_path,
    split_run,
    trained_reward,
)
from codefrontier.base.options import command_line, field_names, flag
from codefrontier.evaluate.second_attempt import SecondAttemptOptions
from codefrontier.generation.options import SampleOptions
from codefrontier.pipeline.places import EMBEDDED, Places, model_reference
from codefrontier.pipeline.resources import nodes as resource_nodes
from codefrontier.pipeline.resources import rule_entry as resources
from codefrontier.settings.registry import repair_setting, setting_entry, setting_order
from codefrontier.train.repair import RepairOptions


def grid_seeds(config: dict) -> list[int]:
    """The seeds every run is trained and evaluated under: `seeds`, or `seed` as its
    one-seed form, or [0]."""
    return list(config.get("seeds") or [config.get("seed", 0)])


def runs(config: dict) -> list[str]:
    """Every run of the grid: each model once per seed (layout.run_name), model by
    model."""
    seeds = grid_seeds(config)
    return [run_name(model, seed, seeds[0]) for model in config["models"] for seed in seeds]


def model_config(config: dict, run: str) -> dict:
    """The config of the model a run trains (`models.<name>`)."""
    return config["models"][model_of(run)]


def checkpoint_names(model_config: dict) -> list[str]:
    """sft, rl-<reward> per reward, rl-repair-<reward> for the repair run, a<alpha> per α:
    the checkpoints of a model. α = 0 and α = 1 are the RL endpoints themselves
    (θ_0 = θ_low, θ_1 = θ_high): no merge is made for them, and their frontier rows are
    the endpoints' rows, with α 0 and 1."""
    names = [SFT] + [rl_name(r) for r in model_config["rl"]["rewards"]]
    repair = model_config["rl"].get("repair")
    if repair:
        names.append(rl_name(repair_run(repair["reward"])))
    merge = model_config.get("merge")
    if merge:
        names += [alpha_name(a) for a in merge["alphas"] if a not in (0, 1)]
    return names


def evaluated_checkpoints(config: dict, model: str, setting: str) -> list[str]:
    """The checkpoints a setting evaluates: all of the model's, less those that the
    model's `evaluated_in` keeps to other settings."""
    own = model_config(config, model)
    only = own.get("evaluated_in") or {}
    return [name for name in checkpoint_names(own)
            if setting in only.get(name, [setting])]


def trains_sft(config: dict, model: str) -> bool:
    """Whether the grid fine-tunes the model (no `sft_checkpoint` given)."""
    return not model_config(config, model).get("sft_checkpoint")


def sft_folder(config: dict, model: str, places: Places | None = None) -> str:
    """Where a run's SFT checkpoint is: given in the config (a folder or a hub id), or
    made by the sft rule (one per model, whatever the run's seed)."""
    if trains_sft(config, model):
        return SFT_FOLDER.fill(model=model_of(model))
    return model_reference(model_config(config, model)["sft_checkpoint"],
                           places or Places.here()).value


def base_model(config: dict, model: str, places: Places | None = None) -> str:
    base = model_config(config, model)["base"]
    return INIT_FOLDER.fill(model=model_of(model)) if base == EMBEDDED else \
        model_reference(base, places or Places.here()).value


def trained_in(config: dict, model: str, setting: str) -> str:
    """The setting whose GRPO runs (and their merges) a setting evaluates: its own unless
    the model's `rl.trained_in` names another."""
    return (model_config(config, model)["rl"].get("trained_in") or {}).get(setting, setting)


def checkpoint_folder(config: dict, model: str, setting: str, ckpt: str,
                      places: Places | None = None) -> str:
    """The folder of checkpoint `ckpt` as evaluated in `setting`."""
    parsed = CheckpointName.parse(ckpt)
    if parsed.kind == "sft":
        return sft_folder(config, model, places)
    source = trained_in(config, model, setting)
    if parsed.kind == "rl":
        trains_in = repair_setting() if trained_reward(parsed.reward)[1] else source
        return RL_FOLDER.fill(model=model, setting=trains_in, reward=parsed.reward)
    return MERGE_FOLDER.fill(model=model, setting=source, alpha=ckpt.removeprefix(ALPHA_PREFIX))


def merge_parent(config: dict, model: str, setting: str, end: str) -> str:
    """The RL run a merge takes as θ_low or θ_high (`end`: "low" or "high")."""
    return RL_FOLDER.fill(model=model, setting=setting,
                          reward=model_config(config, model)["merge"][end])


def merge_folders(config: dict) -> list[str]:
    """Every merged checkpoint folder of the grid (once, however many settings use it)."""
    folders = [checkpoint_folder(config, model, setting, ckpt)
               for model in runs(config)
               for setting in config["settings"]
               for ckpt in evaluated_checkpoints(config, model, setting)
               if CheckpointName.parse(ckpt).kind == "merge"]
    return list(dict.fromkeys(folders))


def merge_records(config: dict) -> list[str]:
    """The record of every merged checkpoint of the grid (kept whether or not the folder is)."""
    return [MERGE_FOLDER.counterpart(folder, MERGE_RECORD).as_posix()
            for folder in merge_folders(config)]


KEEP_DEFAULTS = {"trainer_checkpoints": False, "merges": True}  # config `keep`


def training_runs(config: dict) -> list[str]:
    """The output folder of every training run the grid makes: each model's SFT (unless
    the config gives its checkpoint), then every GRPO run that its evaluated checkpoints
    and merges come from, once each."""
    sft = [SFT_FOLDER.fill(model=model_of(run)) for run in runs(config)
           if trains_sft(config, run)]
    rl = [checkpoint_folder(config, run, setting, ckpt)
          for run in runs(config) for setting in config["settings"]
          for ckpt in evaluated_checkpoints(config, run, setting)
          if CheckpointName.parse(ckpt).kind == "rl"]
    ends = [merge_parent(config, merge["model"], merge["setting"], end)
            for merge in map(MERGE_FOLDER.parse, merge_folders(config))
            for end in ("low", "high")]
    return list(dict.fromkeys([*sft, *rl, *ends]))


def training_charts(config: dict) -> list[str]:
    """The training curves' charts (analysis/training_plots.py): each setting whose GRPO
    runs the grid trains, in the registry's order, then the SFT runs' where it trains one."""
    runs_of = [RL_FOLDER.parse(folder) for folder in training_runs(config)]
    settings = setting_order(run["setting"] for run in runs_of if run is not None)
    return [*settings, *([SFT_CURVES] if None in runs_of else [])]


def keeps(config: dict, what: str) -> bool:
    """Whether the run keeps `what` (config `keep`): trainer checkpoints once a training
    run is published (default no), merged folders once they are sampled (default yes)."""
    return bool((config.get("keep") or {}).get(what, KEEP_DEFAULTS[what]))


def print_warnings(report: str) -> None:
    """The warnings of a claims report, printed where the user sees them."""
    path = Path(report)
    if path.exists():
        for line in path.read_text().splitlines():
            if line.startswith("**WARNING**"):
                print(line.replace("**WARNING**", "WARNING:"))


def verdict_files(config: dict) -> list[str]:
    return [VERDICTS.fill(model=model, setting=setting, ckpt=ckpt)
            for model in runs(config)
            for setting in config["settings"]
            for ckpt in evaluated_checkpoints(config, model, setting)]


def first_attempt_verdict_files(config: dict) -> list[str]:
    """The first attempts' verdicts that `second_attempts.checkpoints` asks second
    attempts for (in `second_attempts.settings`, default every setting)."""
    second = config.get("second_attempts") or {}
    wanted = set(second.get("checkpoints") or [])
    settings = set(second.get("settings") or config["settings"])
    return [path for path in verdict_files(config)
            if (parts := VERDICTS.parse(path))["ckpt"] in wanted and parts["setting"] in settings]


def second_attempt_verdict_files(config: dict) -> list[str]:
    """The second attempts' verdicts, beside first_attempt_verdict_files' first ones."""
    return [str(second_attempt_verdicts_path(path)) for path in first_attempt_verdict_files(config)]


def recorded_inputs(output: str | os.PathLike) -> set[str] | None:
    """The input paths an output's provenance records, as recorded_path writes them (None
    when the output or its provenance is not there)."""
    from codefrontier.base.provenance import UnreadableProvenance, read_provenance

    if not Path(output).exists():
        return None
    try:
        provenance = read_provenance(output)
    except UnreadableProvenance:
        return None
    if provenance is None:
        return None
    return {item.get("path") for item in provenance.get("inputs") or [] if isinstance(item, dict)}


def rerun_marker(output: str, inputs: list[str], touch: bool) -> list[str]:
    """[RERUN_MARKER for `output`] when `output` exists and was made from other inputs than
    `inputs` (by its provenance), else [].

    Snakemake reruns a job whose output exists only for a newer input or, through its
    metadata in .snakemake/, for changed params or a changed set of inputs; a missing
    input that another job would make is no reason by itself (it decides from the
    targets down). So a reward, an α or a setting added to the config of a results tree
    without that metadata (copied, moved, restored) planned nothing. The marker, touched
    now (`touch`: the main Snakemake process) and made an input of the stale output,
    is newer than it: the output reruns, and the new checkpoints it reads are made
    first. An output made from these very inputs takes no marker, so a dry run of another
    config changes nothing for this one."""
    from codefrontier.base.provenance import recorded_path

    recorded = recorded_inputs(output)
    if recorded is None or recorded == {recorded_path(path)["path"] for path in inputs}:
        return []
    marker = Path(RERUN_MARKER.fill(name=Path(output).name))
    if touch:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    return [marker.as_posix()]


def second_attempt_options(config: dict, setting: str, model: str = "") -> str:
    """`second-attempt sample` options: the setting's sampling (one second attempt per
    failure) with `second_attempts.temperature` / `.max_new_tokens` over it, and the
    feedback cap."""
    second = config.get("second_attempts") or {}
    values = {**setting_sampling(config, setting, model),
              **{key: second[key] for key in ("temperature", "max_new_tokens",
                                              "max_feedback_tokens") if key in second}}
    return command_line(SecondAttemptOptions, _fields_of(SecondAttemptOptions, values))


def run_seed(config: dict, run: str = "") -> int:
    """A run's seed (the grid's first for a model's own run, and for what every run of a
    model shares: its initialisation and SFT): the seed of its GRPO runs and sampling,
    where a stage does not set its own."""
    seed = split_run(run)[1] if run else None
    return grid_seeds(config)[0] if seed is None else seed


def seeded(config: dict, fields: dict, run: str = "") -> dict:
    """A stage's fields with the run's seed, unless they name their own."""
    return {"seed": run_seed(config, run), **fields}


def model_init_fields(config: dict, model: str) -> dict:
    """`codefrontier model init` fields of an embedded model (`init`, and the seed)."""
    return seeded(config, config["models"][model].get("init") or {}, model)


def sft_fields(config: dict, model: str) -> dict:
    """The TRL SFTConfig fields of a model's SFT run (`sft`, and the seed)."""
    return seeded(config, config["models"][model].get("sft") or {}, model)


def rl_trl(config: dict, model: str, setting: str) -> dict:
    """The TRL fields of a model's GRPO runs in a setting: the seed, `rl.trl`, then the
    setting's own entry of `rl.per_setting` (multi-turn episodes need a longer completion
    budget)."""
    rl = model_config(config, model)["rl"]
    return seeded(config, {**rl["trl"], **(rl.get("per_setting") or {}).get(setting, {})},
                  model)


def rl_start(config: dict, model: str, reward: str, places: Places | None = None) -> str:
    """The checkpoint a GRPO run starts from: the SFT checkpoint, or for the repair run
    the checkpoint its `start` names (sft or an RL endpoint, rl-<reward>)."""
    if not trained_reward(reward)[1]:
        return sft_folder(config, model, places)
    return checkpoint_folder(config, model, repair_setting(),
                             model_config(config, model)["rl"]["repair"].get("start", SFT), places)


def rl_options(config: dict, model: str, reward: str) -> str:
    """`train grpo` options that name the reward, and for the repair run its options."""
    trained, is_repair = trained_reward(reward)
    if not is_repair:
        return f"--reward {trained}"
    run = model_config(config, model)["rl"]["repair"]
    options = {key: value for key, value in run.items() if key not in ("reward", "start")}
    return f"--reward {trained} --repair {command_line(RepairOptions, options)}".rstrip()


def episode_limits(config: dict, setting: str) -> dict:
    """The config's `episodes` limits for a setting ({} when none are given)."""
    return dict((config.get("episodes") or {}).get(setting) or {})


def episode_options(config: dict, setting: str) -> str:
    """A setting's episode limits as `sample` / `train grpo` options, e.g. `--max-tool-calls 3
    --output-chars 900`, in the order of its limits (settings/registry.py); limits the config
    leaves out keep their defaults, and reasoning has none ("")."""
    limits = episode_limits(config, setting)
    return " ".join(f"{flag(limit.name)} {limits[limit.name]}"
                    for limit in setting_entry(setting).limit_fields() if limit.name in limits)


def _with_episodes(value: dict, config: dict, setting: str | None) -> dict:
    """A slice plus the setting's episode limits, when the config gives any (so that a slice
    recorded before the `episodes` block existed still matches for reasoning)."""
    limits = episode_limits(config, setting) if setting else {}
    return {**value, "episodes": limits} if limits else value


def _repair_slice(model_config: dict, reward: str) -> dict:
    """The repair run's own settings ({} for any other run, so their slices stay as
    before)."""
    return {"repair": model_config["rl"]["repair"]} if trained_reward(reward)[1] else {}


def _aggregate_model_slice(model_config: dict) -> dict:
    """What the tables read of a model's config: its merge endpoints, and where its
    settings' checkpoints were trained when that is not their own setting."""
    shared = model_config["rl"].get("trained_in")
    return {"merge": model_config.get("merge"), **({"trained_in": shared} if shared else {})}


def config_slice(config: dict, rule: str, **wildcards: str) -> Any:
    """The part of the config that a rule's output depends on."""
    model = config["models"].get(model_of(wildcards.get("model", "")), {})
    setting = wildcards.get("setting")
    slices = {
        "problems": lambda: config["data"],
        "sft_data": lambda: {**config["data"]["sft"], "settings": config["settings"]},
        "model_init": lambda: {"base": model["base"],
                               "init": model_init_fields(config, wildcards["model"])},
        "sft": lambda: sft_fields(config, wildcards["model"]),
        "rl": lambda: _with_episodes({"reward": wildcards["reward"],
                                      "trl": rl_trl(config, wildcards["model"], setting),
                                      **_repair_slice(model, wildcards["reward"])},
                                     config, setting),
        "merge": lambda: {"low": model["merge"]["low"], "high": model["merge"]["high"],
                          "alpha": wildcards["alpha"]},
        "sample": lambda: _with_episodes({"sampling": setting_sampling(config, setting,
                                                                       wildcards["model"]),
                                          "setting": setting}, config, setting),
        # verdicts depend on the problems and samples alone, charts, claims and the
        # second-attempt table on their tables
        "judge": lambda: {},
        "plots": lambda: {},
        "claims": lambda: {},
        "second_attempt_table": lambda: {},
        # the training table, its curves and the Inspect logs depend on their inputs alone
        "training": lambda: {},
        "training_plots": lambda: {},
        "inspect_logs": lambda: {},
        "second_attempt": lambda: {"options": second_attempt_options(config, setting,
                                                                     wildcards["model"])},
        "aggregate": lambda: {"models": {m: _aggregate_model_slice(c)
                                         for m, c in config["models"].items()},
                              "settings": config["settings"]},
    }
    if rule not in slices:
        raise KeyError(rule)
    return {**slices[rule](), **_kernels_slice(config, rule)}


# the rules whose outputs torch computes: another kernels mode gives other bits
COMPUTED_WITH_TORCH = ("model_init", "sft", "rl", "merge", "sample", "second_attempt")


def _kernels_slice(config: dict, rule: str) -> dict:
    """A pinned kernels mode, in the slices of the rules torch computes ({} for the
    native default, so that those slices stay as they were and a change of mode reruns
    exactly these jobs)."""
    mode = config.get("kernels", DEFAULT_KERNELS)
    return {"kernels": mode} if mode != DEFAULT_KERNELS and rule in COMPUTED_WITH_TORCH else {}


def provenance_option(config: dict, rule: str, **wildcards: str) -> str:
    """The `--provenance-config` argument a rule passes to codefrontier, shell-quoted."""
    value = {"rule": rule, "wildcards": dict(wildcards),
             "slice": config_slice(config, rule, **wildcards)}
    return "--provenance-config " + shlex.quote(json.dumps(value, sort_keys=True))


def set_options(values: dict) -> str:
    """`--set key=value` options for a trainer (values as JSON, which YAML reads)."""
    return " ".join(f"--set {shlex.quote(f'{k}={json.dumps(v)}')}"
                    for k, v in sorted(values.items()))


def init_options(init: dict) -> str:
    """`codefrontier model init` size options, in a fixed order (params are compared as text)."""
    return " ".join(f"{flag(key)} {value}" for key, value in sorted(init.items()))


def problem_build_options(source: dict, places: Places | None = None) -> str:
    """`codefrontier problems build` options for a data entry of the config."""
    options = [f"--source {source['source']}"]
    if "split" in source:
        options.append(f"--split {source['split']}")
    values = {**source, **({"data_dir": (places or Places.here()).resolve(source["data_dir"])}
                           if source.get("data_dir") else {})}
    for key in ("instances", "knob_pool", "release", "start_date", "end_date", "config", "limit",
                "data_dir"):
        if values.get(key) is not None:
            options.append(f"{flag(key)} {shlex.quote(str(values[key]))}")
    for key in ("difficulty", "platform", "family"):
        options += [f"--{key} {shlex.quote(v)}" for v in source.get(key, [])]
    return " ".join(options)


def disjoint_from(config: dict, split: str) -> list[str]:
    """Problem files a split must share no test with: bundled eval instances are drawn
    apart from the bundled train instances."""
    data = config["data"]
    if split == "eval" and data["eval"]["source"] == "bundled" == data["train"]["source"]:
        return [DATA.fill(split="train")]
    return []


def sft_build_options(sft: dict) -> str:
    """`codefrontier problems sft` options for the config's `data.sft` entry."""
    options = [f"--split {sft.get('split', 'train')}"]
    for key in ("instances", "knob_pool"):
        if sft.get(key) is not None:
            options.append(f"{flag(key)} {sft[key]}")
    for key in ("difficulty", "family"):
        options += [f"--{key} {shlex.quote(v)}" for v in sft.get(key, [])]
    for key in ("with_fixes", "with_repairs", "mask_failed_attempts"):
        if sft.get(key):
            options.append(flag(key))
    return " ".join(options)


def launcher(config: dict, model: str, rule: str = "rl", places: Places | None = None) -> str:
    """How a training command (`rule`: sft or rl) starts: directly, or through accelerate
    on `rl.processes` processes per node of the rule's job."""
    rl = model_config(config, model)["rl"]
    processes = rl.get("processes", 1)
    nodes = resource_nodes(config, rule, model)
    if processes == 1 and nodes == 1 and not rl.get("accelerate_config"):
        return "codefrontier"
    options = f"--processes {processes}"
    if rl.get("accelerate_config"):
        accelerate = (places or Places.here()).resolve(rl["accelerate_config"])
        options += f" --accelerate-config {shlex.quote(accelerate)}"
    elif not resources(config, rule, model).get("gpu"):
        options += " --cpu"
    return f"codefrontier launch {options} --"


def setting_sampling(config: dict, setting: str, model: str = "") -> dict:
    """The sampling settings of one inference setting: the seed, `sampling`, then the setting's
    entry of `sampling.per_setting` (a multi-turn turn may need another token budget),
    then the model's engine fields (`models.<name>.sampling`: tensor parallelism, memory;
    the protocol itself is the grid's, the same for every model)."""
    sampling = {k: v for k, v in config["sampling"].items() if k != "per_setting"}
    engine = config["models"].get(model_of(model), {}).get("sampling") or {}
    return seeded(config, {**sampling, **(config["sampling"].get("per_setting") or {}).get(setting, {}),
                           **engine}, model)


def _fields_of(options_class, values: dict) -> dict:
    """The entries of a config block that are fields of the options (a `sampling` block
    also holds `per_setting`, and `n` is no option of `second-attempt sample`)."""
    names = set(field_names(options_class))
    return {key: value for key, value in values.items() if key in names}


def sampling_options(sampling: dict) -> str:
    return command_line(SampleOptions, _fields_of(SampleOptions, sampling))


def command_options(config: dict, rule: str, places: Places | None = None,
                    **wildcards: str) -> str:
    """The options a rule gives its `codefrontier` command, paths and thread counts aside:
    one definition for the rules and for scripts that rerun a step by hand
    (benchmarks/default_options.py)."""
    model = wildcards.get("model", "")
    setting = wildcards.get("setting", "")
    commands = {
        "problems": lambda: problem_build_options(config["data"][wildcards["split"]], places),
        # one SFT policy serves every setting: it learns each setting's protocol
        "sft_data": lambda: " ".join([sft_build_options(config["data"].get("sft", {})),
                                      *(f"--setting {name}" for name in config["settings"])]),
        "model_init": lambda: init_options(model_init_fields(config, model)),
        "sft": lambda: " ".join(filter(None, [set_options(sft_fields(config, model)),
                                              keep_option(config)])),
        "rl": lambda: " ".join(filter(None, [
            rl_options(config, model, wildcards["reward"]),
            set_options(rl_trl(config, model, setting)), f"--setting {setting}",
            episode_options(config, setting), keep_option(config)])),
        "sample": lambda: " ".join(filter(None, [
            sampling_options(setting_sampling(config, setting, model)),
            episode_options(config, setting)])),
        "second_attempt": lambda: second_attempt_options(config, setting, model),
    }
    if rule not in commands:
        raise KeyError(f"no command options for rule {rule!r}: {', '.join(commands)}")
    return commands[rule]()


def keep_option(config: dict) -> str:
    """`--keep-checkpoints` when the config keeps trainer checkpoints, else ""."""
    return "--keep-checkpoints" if keeps(config, "trainer_checkpoints") else ""


def merge_options(config: dict) -> str:
    """`--merge MODEL LOW HIGH` per model with a merge: names the endpoints for the tables."""
    return " ".join(f"--merge {model} {m['merge']['low']} {m['merge']['high']}"
                    for model, m in config["models"].items() if m.get("merge"))


def job_environment(config: dict) -> dict[str, str]:
    """The variables every job starts with: the config's `environment`, and the ones
    its `kernels` mode sets (base/kernels.py)."""
    return {**kernel_environment(config.get("kernels", DEFAULT_KERNELS)),
            **{name: str(value) for name, value in (config.get("environment") or {}).items()}}


def set_job_environment(config: dict) -> None:
    """Export job_environment to every job this Snakemake starts (and to the jobs of a
    cluster, which read the Snakefile again); a variable the user already set keeps its
    value."""
    for name, value in job_environment(config).items():
        os.environ.setdefault(name, value)


def flag_each(flag: str, name: str):
    """A params function: `flag` before each file of the rule's input `name`
    (`--disjoint-from a --disjoint-from b`; "" when it has none)."""
    return lambda wildcards, input: " ".join(f"{flag} {path}" for path in getattr(input, name))


def flag_once(flag: str, name: str):
    """A params function: `flag` and then every file of the rule's input `name`
    (`--second-attempts a b`; "" when it has none)."""
    return lambda wildcards, input: (f"{flag} {' '.join(getattr(input, name))}"
                                     if getattr(input, name) else "")


def output_folder(wildcards, output) -> str:
    """A params function: the folder of the rule's first output (without a shared file
    system the job's outputs may lie elsewhere, so it is not written out)."""
    return os.path.dirname(output[0])


def results_folder(wildcards, input) -> str:
    """A params function: the results folder of the rule's `frontier` input (the
    frontier table lies at its top)."""
    return os.path.dirname(input.frontier)


def local_input(path: str) -> list[str]:
    """A model reference as a rule input: a folder (made by a rule or on disk) is one;
    a hub id is not a file, so the rule does not depend on it."""
    return [path] if path.startswith(RESULTS + "/") or Path(path).exists() else []
