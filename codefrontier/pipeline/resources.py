"""What each job asks of the machine or the cluster: the config's `resources`, turned into
the Snakemake resources that the Slurm executor plugin reads.

An entry of `resources` (`default`, a rule's name, or a model's own
`models.<name>.resources.<rule>`) holds these keys; every one reaches every job that reads
the entry (tests/test_resources.py submits to a Slurm cluster and reads them back):

* `threads`: the job's cores (Snakemake's threads; Slurm's --cpus-per-task unless
  `cpus_per_task` says otherwise), which the commands use for their own workers;
* `mem_mb`, `runtime` (minutes), `slurm_partition`, `slurm_account`, `slurm_extra` (more
  sbatch options, as written), `cpus_per_task`, `nodes`;
* `gpu`: GPUs **per node**, and `gpu_model`: their type. A one-node job asks Slurm for
  `--gpus=[model:]N`; a job over several nodes for `--gres=gpu:[model:]N`, which Slurm
  counts per node.

The training rules (sft, rl) start one launcher per node (`codefrontier launch` starts
that node's processes), so their jobs ask for one task per node. Their jobs resume their
work folder's last checkpoint, so a job stopped by its time limit or a preemption is
submitted again (`retries`), with the same runtime: a longer one would resume the same
way after a longer wait in the queue, and could pass the partition's limit. Each retry
learns its attempt (the `attempt` resource) and starts only if the attempt before it made
progress (train/submissions.py).
"""

from __future__ import annotations

from typing import Any

from codefrontier.base.layout import model_of

# every rule of the Snakefile, each reading its own entry unless named here
RULES = ("problems", "sft_data", "model_init", "sft", "rl", "merge", "sample", "judge",
         "second_attempt", "judge_second_attempt", "frontier", "ensemble", "plots", "claims", "second_attempt_table",
         "training", "training_plots", "inspect_logs")
READS_ENTRY_OF = {"second_attempt": "sample", "judge_second_attempt": "judge"}  # second attempts sample and judge
LAUNCHED = ("sft", "rl")  # rules whose command goes through `codefrontier launch`
RESUMING = LAUNCHED  # rules whose jobs resume their work folder's last trainer checkpoint
# how often a resuming job is submitted again: the shipped grids' longest runs take up to 5
# submissions at a 24-hour limit (docs/cluster.md, "Sizing the shipped grids")
TRAINING_RETRIES = 5
GPU_RULES = ("sft", "rl", "sample", "second_attempt")  # rules whose command can use a GPU
DEFAULT_ENTRY = "default"
# the keys an entry may hold (config.schema.yaml's definition `resource`: a test keeps both
# equal), and those handed to Snakemake as they are
KEYS = ("threads", "mem_mb", "runtime", "gpu", "gpu_model", "cpus_per_task",
        "slurm_partition", "slurm_account", "slurm_extra", "nodes")
PASSED_AS_THEY_ARE = ("mem_mb", "runtime", "cpus_per_task", "slurm_partition",
                      "slurm_account", "slurm_extra")


def entry_name(rule: str) -> str:
    return READS_ENTRY_OF.get(rule, rule)


def rule_entry(config: dict, rule: str, model: str = "") -> dict:
    """A rule's resources for one model: the config's `default`, then the rule's entry,
    then the model's own entry for the rule (a 32B model's jobs need more GPUs than a 7B
    model's in the same grid)."""
    name = entry_name(rule)
    table = config.get("resources") or {}
    own = (((config.get("models") or {}).get(model_of(model)) or {}).get("resources")
           or {}).get(name, {})
    return {**table.get(DEFAULT_ENTRY, {}), **table.get(name, {}), **own}


def threads(config: dict, rule: str, model: str = "") -> int:
    return int(rule_entry(config, rule, model).get("threads", 1))


def nodes(config: dict, rule: str, model: str = "") -> int:
    return int(rule_entry(config, rule, model).get("nodes", 1))


def gpus_per_node(config: dict, rule: str, model: str = "") -> int:
    return int(rule_entry(config, rule, model).get("gpu", 0))


def job_resources(config: dict, rule: str, model: str = "") -> dict[str, Any]:
    """The Snakemake resources of one job of `rule` (for `model`, where the rule has one);
    keys the config leaves unset are left out (the profile's defaults apply)."""
    entry = rule_entry(config, rule, model)
    values: dict[str, Any] = {key: entry[key] for key in PASSED_AS_THEY_ARE if key in entry}
    count, node_count = entry.get("gpu", 0), entry.get("nodes", 1)
    values["nodes"] = node_count
    if count and node_count > 1:
        model_name = entry.get("gpu_model")
        values["gres"] = f"gpu:{model_name}:{count}" if model_name else f"gpu:{count}"
    else:
        values["gpu"] = count
        if count and entry.get("gpu_model"):
            values["gpu_model"] = entry["gpu_model"]
    if rule in LAUNCHED:
        # one launcher task per node: Slurm shrinks a job of 2 nodes and 1 task to one node,
        # and the plugin sets no task count for a GPU job
        values["tasks"] = node_count
        values["tasks_per_gpu"] = 0
        if count and node_count > 1:
            values["slurm_extra"] = " ".join(filter(None, [entry.get("slurm_extra"),
                                                           "--ntasks-per-node=1"]))
    return values


def resource_names(config: dict, rule: str) -> list[str]:
    """The resources that some job of `rule` has, over every model of the grid (a rule's
    `resources:` directive names the same keys for all its jobs)."""
    models = list(config.get("models") or {}) or [""]
    names: dict[str, None] = {}
    for model in models:
        names.update(dict.fromkeys(job_resources(config, rule, model)))
    return list(names)


def rule_resources(config: dict, rule: str) -> dict[str, Any]:
    """The `resources:` of a rule: per resource, a function of the job's wildcards (None
    where the job's model leaves the resource unset: Snakemake then drops it); a resuming
    rule's jobs also get their `attempt` (1, then 2 for the first retry, ...)."""
    def value_of(name: str):
        return lambda wildcards: job_resources(config, rule, dict(wildcards).get("model", "")
                                               ).get(name)

    values = {name: value_of(name) for name in resource_names(config, rule)}
    if rule in RESUMING:
        values["attempt"] = lambda wildcards, attempt: attempt
    return values


def rule_retries(rule: str) -> int | None:
    """The `retries:` of a rule: resuming rules are submitted again after a stop; the others
    take the profile's (or Snakemake's) setting."""
    return TRAINING_RETRIES if rule in RESUMING else None


def rule_threads(config: dict, rule: str):
    """The `threads:` of a rule, as a function of the job's wildcards."""
    return lambda wildcards: threads(config, rule, dict(wildcards).get("model", ""))
