"""What the schema cannot say about a config: checks across its keys, at plan time.

Each check yields the problems it finds, each naming the key and the fix. `errors` stop
the run before any job starts (`snakemake -n` included); `warnings` are printed and the
run goes on (a request that wastes what it asks for, a key that changes nothing).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from codefrontier.base.layout import SFT, rl_name
from codefrontier.loaders.hub import hub_cache_dir, hub_is_off
from codefrontier.pipeline import resources as res
from codefrontier.pipeline.configfiles import ConfigError, Problem, RunConfig, close_match, report
from codefrontier.pipeline.places import Places, model_reference
from codefrontier.pipeline.prefetch import hub_items
from codefrontier.pipeline.workflow import checkpoint_names, setting_sampling, trains_sft
from codefrontier.pipeline.workflow import trained_in as runs_of  # trained_in is a check here
from codefrontier.settings.registry import default_setting

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Finding:
    severity: str
    problem: Problem


def _error(where: tuple, what: str) -> Finding:
    return Finding(ERROR, Problem(where, what))


def _warning(where: tuple, what: str) -> Finding:
    return Finding(WARNING, Problem(where, what))


def check(run: RunConfig, places: Places) -> list[Problem]:
    """Raise ConfigError with every error; the warnings."""
    findings = list(dict.fromkeys(finding for check_ in CHECKS
                                  for finding in check_(run.values, places)))
    errors = [f.problem for f in findings if f.severity == ERROR]
    if errors:
        raise ConfigError(report(errors, run))
    return [f.problem for f in findings if f.severity == WARNING]


def check_hub(run: RunConfig, places: Places, command: str) -> None:
    """With the Hub off, every model and dataset the config reads from it must be in the
    cache: raise ConfigError naming what is not, and `command` (which fetches it)."""
    if not hub_is_off():
        return
    missing = [item for item in hub_items(run.values, places) if item.cached() is None]
    if missing:
        problems = [Problem(item.where, f"{item.repo} ({item.kind}) is not in the Hugging Face "
                                        f"cache {hub_cache_dir()}, and the Hub is off "
                                        f"(HF_HUB_OFFLINE)") for item in missing]
        raise ConfigError(report(problems, run) + f"\nFetch it on a machine with network "
                                                  f"access: {command}\n(or let the jobs reach "
                                                  f"the Hub: unset HF_HUB_OFFLINE)")


# --- the checks --------------------------------------------------------------------------

def _models(config: dict):
    return (config.get("models") or {}).items()


def merge_endpoints(config: dict, places: Places) -> Iterator[Finding]:
    """A merge's endpoints are two of the model's own rewards."""
    for model, model_config in _models(config):
        merge = model_config.get("merge")
        rewards = model_config["rl"]["rewards"]
        if not merge:
            continue
        for end in ("low", "high"):
            if merge[end] not in rewards:
                yield _error(("models", model, "merge", end),
                             f"{merge[end]!r} is not one of the model's rewards "
                             f"({', '.join(rewards)}): a merge averages two of its own RL "
                             f"runs; add it to models.{model}.rl.rewards or name another"
                             f"{close_match(merge[end], rewards)}")
        if merge["low"] == merge["high"]:
            yield _error(("models", model, "merge", "high"),
                         f"the same run as merge.low ({merge['low']!r}): every θ_α would be "
                         f"that run's weights")
        alphas = merge["alphas"]
        if len(set(map(float, alphas))) != len(alphas):
            yield _error(("models", model, "merge", "alphas"), f"an α appears twice: {alphas}")


def named_checkpoints(config: dict, places: Places) -> Iterator[Finding]:
    """`evaluated_in`, `second_attempts.checkpoints` and the repair-training run's `start` name checkpoints
    and settings the grid has."""
    settings = config.get("settings") or []
    every_name: set[str] = set()
    for model, model_config in _models(config):
        names = checkpoint_names(model_config)
        every_name.update(names)
        for name, where_evaluated in (model_config.get("evaluated_in") or {}).items():
            if name not in names:
                yield _error(("models", model, "evaluated_in", name),
                             f"no checkpoint {name!r} in this model ({', '.join(names)})"
                             f"{close_match(name, names)}")
            for setting in where_evaluated:
                if setting not in settings:
                    yield _error(("models", model, "evaluated_in", name),
                                 f"{setting} is not one of the grid's settings "
                                 f"({', '.join(settings)})")
        repair = model_config["rl"].get("repair")
        start = (repair or {}).get("start")
        if start and start != SFT and start not in [rl_name(r) for r in model_config["rl"]["rewards"]]:
            yield _error(("models", model, "rl", "repair", "start"),
                         f"{start!r} is not a run of this model (sft or rl-<one of its "
                         f"rewards>: {', '.join(model_config['rl']['rewards'])})")
    second = config.get("second_attempts") or {}
    for name in second.get("checkpoints") or []:
        if name not in every_name:
            yield _error(("second_attempts", "checkpoints"),
                         f"no model has a checkpoint {name!r}{close_match(name, every_name)}")
    for setting in second.get("settings") or []:
        if setting not in settings:
            yield _error(("second_attempts", "settings"),
                         f"{setting} is not one of the grid's settings ({', '.join(settings)})")


def trained_in(config: dict, places: Places) -> Iterator[Finding]:
    """A setting evaluates the runs of a setting of the grid that trains its own (no
    chains)."""
    settings = config.get("settings") or []
    for model, model_config in _models(config):
        for setting, source in (model_config["rl"].get("trained_in") or {}).items():
            where = ("models", model, "rl", "trained_in", setting)
            if setting not in settings or source not in settings:
                yield _error(where, f"{setting} and {source} must both be in `settings` "
                                    f"({', '.join(settings)})")
            elif runs_of(config, model, source) != source:
                yield _error(where, f"{source} does not train its own runs (it evaluates "
                                    f"{runs_of(config, model, source)}'s): name "
                                    f"{runs_of(config, model, source)} instead")


def per_setting_keys(config: dict, places: Places) -> Iterator[Finding]:
    """Blocks for a setting the grid does not have change nothing."""
    settings = config.get("settings") or []
    blocks = [(("sampling", "per_setting"), (config.get("sampling") or {}).get("per_setting")),
              (("episodes",), config.get("episodes"))]
    blocks += [(("models", model, "rl", "per_setting"), model_config["rl"].get("per_setting"))
               for model, model_config in _models(config)]
    for where, block in blocks:
        for setting in block or {}:
            if setting not in settings:
                yield _warning((*where, setting), f"{setting} is not one of the grid's settings "
                                                  f"({', '.join(settings)}): this block changes "
                                                  f"nothing")


def data_sources(config: dict, places: Places) -> Iterator[Finding]:
    """Each data entry reads a split its source has, and only options its source reads."""
    from codefrontier.loaders.sources import SOURCES

    for role, entry in (config.get("data") or {}).items():
        if role == "sft":
            continue
        source = SOURCES[entry["source"]]
        split = entry.get("split") or source.default_split()
        if split is None:
            yield _error(("data", role, "split"),
                         f"{source.name} has the splits {', '.join(source.splits)}: say which "
                         f"one the {role} problems are (split: {role}, for instance)")
        elif split not in source.splits:
            yield _error(("data", role, "split"),
                         f"{source.name} has only the {' and '.join(source.splits)} split: "
                         f"leave `split` out (the {role} problems are data.{role}'s, whatever "
                         f"split of the source they come from)")
        for key in entry:
            if key not in ("source", "split", *source.options):
                yield _error(("data", role, key),
                             f"{source.name} does not read this option (it reads "
                             f"{', '.join(source.options) or 'none'})")
        if entry.get("data_dir") and places.find(entry["data_dir"]) is None:
            yield _error(("data", role, "data_dir"),
                         f"{entry['data_dir']} is not there (looked in "
                         f"{places.searched(entry['data_dir'])})")
    data = config.get("data") or {}
    if (data.get("train") or {}).get("source") == "bundled" == (data.get("eval") or {}).get("source") \
            and data["train"].get("split") == data["eval"].get("split"):
        yield _error(("data", "eval", "split"),
                     "the same bundled split as data.train: the evaluation would hold the "
                     "training problems (split: eval)")


def model_references(config: dict, places: Places) -> Iterator[Finding]:
    """`base` and `sft_checkpoint` name the embedded model, a folder that exists or a hub
    repository; local files the config names exist."""
    for model, model_config in _models(config):
        for key in ("base", "sft_checkpoint"):
            value = model_config.get(key)
            if not value:
                continue
            reference = model_reference(value, places)
            if reference.kind == "missing":
                yield _error(("models", model, key),
                             f"{value} is neither a folder (looked in {places.searched(value)}) "
                             f"nor a Hugging Face repository id (organisation/name)")
            if key == "sft_checkpoint" and reference.kind == "embedded":
                yield _error(("models", model, key), "`embedded` is a base, not a checkpoint: "
                                                     "leave sft_checkpoint out to train SFT")
        accelerate = model_config["rl"].get("accelerate_config")
        if accelerate and places.find(accelerate) is None:
            yield _error(("models", model, "rl", "accelerate_config"),
                         f"{accelerate} is not there (looked in {places.searched(accelerate)})")
        if model_config.get("init") and model_config["base"] != "embedded":
            yield _warning(("models", model, "init"), "sizes the embedded model only: the base "
                                                      f"{model_config['base']} ignores it")


def training_processes(config: dict, places: Places) -> Iterator[Finding]:
    """A training job starts `rl.processes` processes per node: one per GPU of the node on
    a GPU job, at most one per core on a CPU job; SFT of a hub model needs GPUs."""
    for model, model_config in _models(config):
        processes = model_config["rl"].get("processes", 1)
        for rule in ("sft", "rl"):
            if rule == "sft" and not trains_sft(config, model):
                continue
            gpus = res.gpus_per_node(config, rule, model)
            cores = res.threads(config, rule, model)
            where = ("models", model, "rl", "processes")
            if gpus and processes > gpus:
                yield _error(where, f"{processes} training processes per node, but the {rule} "
                                    f"jobs ask for {gpus} GPUs per node (resources.{rule}.gpu): "
                                    f"set processes to {gpus}, or ask for {processes} GPUs")
            elif gpus and processes < gpus:
                yield _warning(where, f"{processes} training processes per node on {gpus} GPUs "
                                      f"per node (resources.{rule}.gpu): "
                                      f"{gpus - processes} GPUs of each node stay idle")
            elif not gpus and processes > cores:
                yield _error(where, f"{processes} training processes per node on a CPU job of "
                                    f"{cores} core{'s' if cores != 1 else ''} "
                                    f"(resources.{rule}.threads): give it "
                                    f"{processes} threads, fewer processes, or GPUs "
                                    f"(resources.{rule}.gpu)")
        if trains_sft(config, model):
            base = model_reference(model_config["base"], places)
            if base.kind == "hub" and not res.gpus_per_node(config, "sft", model):
                yield _error(("models", model, "sft_checkpoint"),
                             f"unset, so the grid fine-tunes {base.value} on the bundled "
                             f"suite's conversations (data.sft) in a CPU job "
                             f"(resources.sft has no gpu): give resources.sft GPUs, or set "
                             f"sft_checkpoint: {base.value} to start RL from the model as it is")


def sampling_engines(config: dict, places: Places) -> Iterator[Finding]:
    """vLLM's tensor parallelism spans the sample job's GPUs, on one node. The engine is
    the same in every setting (`sampling.per_setting` holds no engine field)."""
    first_setting = (config.get("settings") or [default_setting()])[0]
    for model, model_config in _models(config):
        sampling = setting_sampling(config, first_setting, model)
        gpus = res.gpus_per_node(config, "sample", model)
        parallel = sampling.get("tensor_parallel_size", 1)
        vllm = sampling.get("backend") == "vllm"
        where = ("models", model, "sampling", "tensor_parallel_size") \
            if "tensor_parallel_size" in (model_config.get("sampling") or {}) \
            else ("sampling", "tensor_parallel_size")
        if vllm and gpus and parallel > gpus:
            yield _error(where, f"{parallel} GPUs per vLLM engine, but {model}'s sample "
                                f"jobs ask for {gpus} (resources.sample.gpu)")
        elif vllm and gpus and parallel < gpus:
            yield _warning(where, f"one vLLM engine on {parallel} of the {gpus} GPUs "
                                  f"{model}'s sample jobs ask for: the rest stay idle")
        elif not vllm and gpus > 1:
            yield _warning(("sampling", "backend"),
                           f"the transformers backend uses one GPU; {model}'s sample "
                           f"jobs ask for {gpus}")


def resource_requests(config: dict, places: Places) -> Iterator[Finding]:
    """Several nodes only for training; GPUs only where a command uses them; no fewer CPUs
    than the threads a command starts."""
    rules = [rule for rule in res.RULES if rule not in res.READS_ENTRY_OF]
    for model in [*(m for m, _ in _models(config))]:
        for rule in rules:
            entry = res.rule_entry(config, rule, model)
            place = ("resources", rule)
            if entry.get("nodes", 1) > 1 and rule not in res.LAUNCHED:
                yield _error((*place, "nodes"), f"{rule} jobs run on one node (only the training "
                                                f"rules sft and rl span several)")
            if entry.get("gpu") and rule not in res.GPU_RULES:
                yield _warning((*place, "gpu"), f"{rule} jobs do not use a GPU: "
                                                f"{entry['gpu']} requested for nothing")
            cpus = entry.get("cpus_per_task")
            if cpus and cpus < entry.get("threads", 1):
                yield _error((*place, "cpus_per_task"),
                             f"{cpus} CPUs for a job that starts {entry.get('threads')} threads "
                             f"(resources.{rule}.threads)")
            if entry.get("gpu_model") and not entry.get("gpu"):
                yield _warning((*place, "gpu_model"), "no GPUs asked for (gpu): the model is "
                                                      "not requested")


def seeds(config: dict, places: Places) -> Iterator[Finding]:
    """`seed` is `seeds`' one-seed form: both may be given only when they agree."""
    if "seed" in config and config.get("seeds") and config["seed"] != config["seeds"][0]:
        yield _error(("seeds",), f"seed {config['seed']} and seeds {config['seeds']} disagree: "
                                 "`seed: N` is `seeds: [N]`; keep one of them (or make "
                                 "seeds start with the seed)")


CHECKS = (seeds, merge_endpoints, named_checkpoints, trained_in, per_setting_keys, data_sources,
          model_references, training_processes, sampling_engines, resource_requests)
