# codefrontier: SFT -> GRPO per reward -> weight averaging per α -> sampling and
# judging per checkpoint -> frontier, ensembles and plots.
#
#   snakemake -c2 results/frontier.parquet                       # embedded default
#   snakemake --profile slurm results/frontier.parquet --configfile=configs/qwen2.5-7b.yaml
#
# Paths are the contract between rules (design.md); logic lives in codefrontier.

from snakemake.utils import min_version

from codefrontier.base import layout
from codefrontier.pipeline import workflow as wf
from codefrontier.pipeline.preemption import requeue_preempted_jobs
from codefrontier.pipeline.snakefile import take_run_config

min_version("9.0")


# The run's config: the --configfile files (the checkout's config.yaml when none), each a
# whole grid or an overlay that names what it `extends:`, then --config; validated, checked
# across keys, and printed with the files it came from (codefrontier/pipeline/configfiles.py)
grid = take_run_config(config, workflow)

RUNS = wf.runs(config)  # each model once per seed (config `seeds`): tiny, tiny@seed1, ...
SETTINGS = config["settings"]
EVAL_PROBLEMS = layout.DATA.fill(split="eval")  # every checkpoint is evaluated on these


wildcard_constraints:
    model="|".join(RUNS),
    setting="|".join(SETTINGS),
    split="train|eval",
    **layout.WILDCARD_PATTERNS,  # reward, alpha, ckpt


include: "rules/data.smk"
include: "rules/train.smk"
include: "rules/merge.smk"
include: "rules/evaluate.smk"
include: "rules/aggregate.smk"
include: "rules/inspection.smk"


onstart:
    # through Slurm: a job preempted and cancelled (PreemptMode=CANCEL) goes back in the queue
    requeue_preempted_jobs(workflow)


onsuccess:
    wf.print_warnings(layout.CLAIMS)


rule all:
    default_target: True
    input:
        layout.FRONTIER,
        layout.ENSEMBLE,
        layout.CLAIMS,
        expand(layout.CHART, chart=layout.CHARTS),
        expand(layout.TRAINING_CHART, curves=TRAINING_CHARTS),
        [layout.SECOND_ATTEMPT_TABLE] if wf.first_attempt_verdict_files(config) else [],
