# The embedded model, SFT, and one GRPO run per model x setting x reward (GRPO rolls out
# episodes of its setting, with the config's `episodes` limits); the repair run
# (rl/repair-<reward>) trains in the setting where repair runs (reasoning), from the
# checkpoint its config names.


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
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("sft"),
    benchmark:
        layout.benchmark("sft")
    shell:
        "{params.launcher} {params.provenance} train sft "
        "--model {params.model} --data {input.data} --out {output} {params.options} > {log} 2>&1"


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
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("rl"),
    benchmark:
        layout.benchmark("rl")
    shell:
        "{params.launcher} {params.provenance} train grpo "
        "--model {params.model} --problems {input.problems} {params.options} "
        "--judge-workers {threads} --out {output} > {log} 2>&1"
