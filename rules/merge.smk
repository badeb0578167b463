# θ_α = α·θ_high + (1−α)·θ_low, one folder per α (adding an α reruns only its own branch).


rule merge:
    input:
        low=lambda wildcards: wf.merge_parent(config, wildcards.model, wildcards.setting, "low"),
        high=lambda wildcards: wf.merge_parent(config, wildcards.model, wildcards.setting, "high"),
    output:
        directory(layout.MERGE_FOLDER),
    params:
        provenance=grid.provenance("merge"),
    threads: grid.threads("merge")
    resources:
        **grid.resources("merge"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        "results/logs/merge/{model}-{setting}-a{alpha}.log",
    benchmark:
        "results/benchmarks/merge/{model}-{setting}-a{alpha}.tsv"
    shell:
        "codefrontier {params.provenance} merge --low {input.low} --high {input.high} "
        "--alpha={wildcards.alpha} --workers {threads} --out {output} --force > {log} 2>&1"
