# Problems (train for RL, eval held out) and the SFT pairs.


rule problems:
    output:
        "results/data/{split}.parquet",
    params:
        options=lambda wildcards: wf.problem_build_options(config["data"][wildcards.split]),
        provenance=provenance("problems"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/problems/{split}.log",
    benchmark:
        "results/benchmarks/problems/{split}.tsv"
    shell:
        "codefrontier {params.provenance} problems build {params.options} --out {output} > {log} 2>&1"


rule sft_data:
    output:
        "results/data/sft.parquet",
    params:
        split=config["data"].get("sft", {}).get("split", "train"),
        provenance=provenance("sft_data"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/sft_data.log",
    benchmark:
        "results/benchmarks/sft_data.tsv"
    shell:
        "codefrontier {params.provenance} problems sft --split {params.split} --out {output} > {log} 2>&1"
