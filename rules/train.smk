# The embedded model, SFT, and one GRPO run per model x setting x reward (GRPO rolls out
# episodes of its setting, with the config's `episodes` limits); the repair run
# (rl/repair-<reward>) trains in the setting where repair runs (reasoning), from the
# checkpoint its config names.
#
# SFT and GRPO jobs stop before their time limit (or on SIGTERM) with a checkpoint saved
# and the resubmit exit status, and are submitted again (`retries`); each submission
# resumes the last (docs/cluster.md, "Time limits, preemption and retries"). `exec`:
# Snakemake waits for the trainer itself (a shell between would die of Slurm's SIGTERM,
# and the job would be reported failed while the trainer still saves).


rule model_init:
    input:
        texts=[layout.DATA.fill(split="train"), layout.DATA.fill(split="sft")],
    output:
        directory(layout.INIT_FOLDER),
    params:
        options=grid.options("model_init"),
        provenance=grid.provenance("model_init"),
    threads: grid.threads("model_init")
    resources:
        **grid.resources("model_init"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("model_init"),
    benchmark:
        layout.benchmark("model_init")
    shell:
        "codefrontier {params.provenance} model init --out {output} --texts {input.texts} "
        "{params.options} --force > {log} 2>&1"


rule sft:
    input:
        model=grid.base_input,
        data=layout.DATA.fill(split="sft"),
    output:
        directory(layout.SFT_FOLDER),
    params:
        model=grid.base,
        options=grid.options("sft"),
        launcher=grid.launcher("sft"),
        provenance=grid.provenance("sft"),
    threads: grid.threads("sft")
    resources:
        **grid.resources("sft"),
    retries: grid.retries("sft")
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("sft"),
    benchmark:
        layout.benchmark("sft")
    shell:
        "exec {params.launcher} {params.provenance} train sft "
        "--model {params.model} --data {input.data} --out {output} {params.options} "
        "--attempt {resources.attempt} > {log} 2>&1"


rule rl:
    input:
        model=grid.rl_start_input,
        problems=layout.DATA.fill(split="train"),
    output:
        # hours of GPU time each: read-only once written, so no rerun or clean-up
        # deletes one by accident (`chmod -R u+w` to retrain on purpose)
        protected(directory(layout.RL_FOLDER)),
    params:
        model=grid.rl_start,
        options=grid.options("rl"),
        launcher=grid.launcher("rl"),
        provenance=grid.provenance("rl"),
    # the longest stage: both runs start as soon as SFT is done, before any sampling
    priority: 10
    threads: grid.threads("rl")
    resources:
        **grid.resources("rl"),
    retries: grid.retries("rl")
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("rl"),
    benchmark:
        layout.benchmark("rl")
    shell:
        "exec {params.launcher} {params.provenance} train grpo "
        "--model {params.model} --problems {input.problems} {params.options} "
        "--judge-workers {threads} --attempt {resources.attempt} --out {output} > {log} 2>&1"
