# Problems (train for RL, eval held out) and the SFT pairs.


# Bundled eval instances are drawn disjoint from the train instances (no shared test).
# The log ends with `problems stats`: tests per decade and, for the bundled suite, the
# rungs that accept each kind of program.
rule problems:
    input:
        disjoint_from=lambda wildcards: wf.disjoint_from(config, wildcards.split),
    output:
        layout.DATA,
    params:
        options=grid.options("problems"),
        provenance=grid.provenance("problems"),
        disjoint=wf.flag_each("--disjoint-from", "disjoint_from"),
    threads: grid.threads("problems")
    resources:
        **grid.resources("problems"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("problems"),
    benchmark:
        layout.benchmark("problems")
    shell:
        "(codefrontier {params.provenance} problems build {params.options} "
        "{params.disjoint} --out {output} && codefrontier problems stats {output}) "
        "> {log} 2>&1"


rule sft_data:
    output:
        layout.DATA.fill(split="sft"),
    params:
        options=grid.options("sft_data"),
        provenance=grid.provenance("sft_data"),
    threads: grid.threads("sft_data")
    resources:
        **grid.resources("sft_data"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("sft_data"),
    benchmark:
        layout.benchmark("sft_data")
    shell:
        "codefrontier {params.provenance} problems sft {params.options} "
        "--workers {threads} --out {output} > {log} 2>&1"
