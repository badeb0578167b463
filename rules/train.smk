# The embedded model, SFT, and one GRPO run per model x setting x reward (GRPO rolls out
# episodes of its setting, with the config's `episodes` limits); the repair run
# (rl/repair-<reward>) trains in reasoning, from the checkpoint its config names.


rule model_init:
    input:
        texts=[layout.DATA.fill(split="train"), layout.DATA.fill(split="sft")],
    output:
        directory(layout.INIT_FOLDER),
    params:
        options=lambda wildcards: wf.command_options(config, "model_init", **wildcards),
        provenance=provenance("model_init"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/model_init/{model}.log",
    benchmark:
        "results/benchmarks/model_init/{model}.tsv"
    shell:
        "codefrontier {params.provenance} model init --out {output} --texts {input.texts} "
        "{params.options} --force > {log} 2>&1"


rule sft:
    input:
        model=lambda wildcards: wf.local_input(wf.base_model(config, wildcards.model)),
        data=layout.DATA.fill(split="sft"),
    output:
        directory(layout.SFT_FOLDER),
    params:
        model=lambda wildcards: wf.base_model(config, wildcards.model),
        options=lambda wildcards: wf.command_options(config, "sft", **wildcards),
        launcher=lambda wildcards: wf.launcher(config, wildcards.model),
        provenance=provenance("sft"),
    threads: res("sft", "threads", 1)
    resources:
        mem_mb=res("sft", "mem_mb"),
        runtime=res("sft", "runtime"),
        gpu=res("sft", "gpu", 0),
        slurm_partition=res("sft", "slurm_partition", ""),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/sft/{model}.log",
    benchmark:
        "results/benchmarks/sft/{model}.tsv"
    shell:
        "HF_HUB_OFFLINE=${{HF_HUB_OFFLINE:-1}} {params.launcher} {params.provenance} train sft "
        "--model {params.model} --data {input.data} --out {output} {params.options} > {log} 2>&1"


rule rl:
    input:
        model=lambda wildcards: wf.local_input(
            wf.rl_start(config, wildcards.model, wildcards.reward)
        ),
        problems=layout.DATA.fill(split="train"),
    output:
        # hours of GPU time each: read-only once written, so no rerun or clean-up
        # deletes one by accident (`chmod -R u+w` to retrain on purpose)
        protected(directory(layout.RL_FOLDER)),
    params:
        model=lambda wildcards: wf.rl_start(config, wildcards.model, wildcards.reward),
        options=lambda wildcards: wf.command_options(config, "rl", **wildcards),
        launcher=lambda wildcards: wf.launcher(config, wildcards.model),
        provenance=provenance("rl"),
    # the longest stage: both runs start as soon as SFT is done, before any sampling
    priority: 10
    threads: res("rl", "threads", 1)
    resources:
        mem_mb=res("rl", "mem_mb"),
        runtime=res("rl", "runtime"),
        gpu=res("rl", "gpu", 0),
        nodes=res("rl", "nodes", 1),
        # one launcher task per node (Slurm shrinks a job of 2 nodes and 1 task to 1 node);
        # not tasks per GPU: the launcher starts each node's processes itself
        tasks=res("rl", "nodes", 1),
        tasks_per_gpu=0,
        slurm_partition=res("rl", "slurm_partition", ""),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/rl/{model}-{setting}-{reward}.log",
    benchmark:
        "results/benchmarks/rl/{model}-{setting}-{reward}.tsv"
    shell:
        "HF_HUB_OFFLINE=${{HF_HUB_OFFLINE:-1}} {params.launcher} {params.provenance} train grpo "
        "--model {params.model} --problems {input.problems} {params.options} "
        "--judge-workers {threads} --out {output} > {log} 2>&1"
