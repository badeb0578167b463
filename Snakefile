# codefrontier: SFT -> GRPO per reward -> weight averaging per α -> sampling and
# judging per checkpoint -> frontier, ensembles and plots.
#
#   snakemake -c2 results/frontier.parquet                       # embedded default
#   snakemake --profile slurm --configfile configs/qwen2.5-7b.yaml results/frontier.parquet
#
# Paths are the contract between rules (design.md); logic lives in codefrontier.

import os

from snakemake.utils import min_version, validate

from codefrontier.pipeline import layout
from codefrontier.pipeline import workflow as wf

min_version("9.0")


# the checkout's default, wherever the run's working directory (--directory) is; a
# --configfile with every required key (a grid: configs/qwen2.5-7b.yaml, smoke.yaml)
# replaces it, one with some keys (an overlay: configs/vllm-cpu.yaml) is merged over it
configfile: os.path.join(workflow.basedir, "config.yaml")
wf.take_grid(config, workflow.config_settings.overwrite_config)


# no defaults written into the config: the slices recorded in provenance stay the
# config files' own values, which `codefrontier audit` compares with
validate(config, "config.schema.yaml", set_default=False)
wf.check_grid(config)
wf.set_job_environment(config)

MODELS = list(config["models"])
SETTINGS = config["settings"]


wildcard_constraints:
    model="|".join(MODELS),
    setting="|".join(SETTINGS),
    split="train|eval",
    **layout.WILDCARD_PATTERNS,  # reward, alpha, ckpt


res, provenance = wf.rule_helpers(config)

include: "rules/data.smk"
include: "rules/train.smk"
include: "rules/merge.smk"
include: "rules/evaluate.smk"
include: "rules/aggregate.smk"


onsuccess:
    wf.print_warnings(layout.CLAIMS)


rule all:
    default_target: True
    input:
        layout.FRONTIER,
        layout.ENSEMBLE,
        layout.CLAIMS,
        expand(layout.CHART, chart=layout.CHARTS),
        [layout.REPAIR_TABLE] if wf.repair_verdict_files(config) else [],
