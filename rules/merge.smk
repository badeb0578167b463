# θ_α = α·θ_high + (1−α)·θ_low, one folder per α (adding an α reruns only its own branch),
# and its record. With `keep.merges: false` the folder goes once every job that samples
# it is done; the record stays (the audit verifies through it, and the same command
# remakes the folder bit for bit).


rule merge:
    input:
        low=lambda wildcards: wf.merge_parent(config, wildcards.model, wildcards.setting, "low"),
        high=lambda wildcards: wf.merge_parent(config, wildcards.model, wildcards.setting, "high"),
    output:
        folder=(
            directory(layout.MERGE_FOLDER)
            if wf.keeps(config, "merges")
            else temp(directory(layout.MERGE_FOLDER))
        ),
        record=layout.MERGE_RECORD,
    params:
        provenance=grid.provenance("merge"),
    threads: grid.threads("merge")
    resources:
        **grid.resources("merge"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("merge"),
    benchmark:
        layout.benchmark("merge")
    shell:
        "codefrontier {params.provenance} merge --low {input.low} --high {input.high} "
        "--alpha={wildcards.alpha} --workers {threads} --out {output.folder} "
        "--record {output.record} --force > {log} 2>&1"
