# Problems (train for RL, eval held out) and the SFT pairs.


# Bundled eval instances are drawn disjoint from the train instances (no shared test).
rule problems:
    input:
        disjoint_from=lambda wildcards: wf.disjoint_from(config, wildcards.split),
    output:
        layout.DATA,
    params:
        options=lambda wildcards: wf.command_options(config, "problems", **wildcards),
        provenance=provenance("problems"),
        disjoint=lambda wildcards, input: " ".join(
            f"--disjoint-from {path}" for path in input.disjoint_from
        ),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/problems/{split}.log",
    benchmark:
        "results/benchmarks/problems/{split}.tsv"
    shell:
        "codefrontier {params.provenance} problems build {params.options} "
        "{params.disjoint} --out {output} > {log} 2>&1"


rule sft_data:
    output:
        layout.DATA.fill(split="sft"),
    params:
        options=wf.command_options(config, "sft_data"),
        provenance=provenance("sft_data"),
    threads: res("sft_data", "threads", 1)
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/sft_data.log",
    benchmark:
        "results/benchmarks/sft_data.tsv"
    shell:
        "codefrontier {params.provenance} problems sft {params.options} "
        "--workers {threads} --out {output} > {log} 2>&1"
