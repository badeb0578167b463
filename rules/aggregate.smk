# The frontier and ensemble tables, the charts, and the report. A table made from other
# checkpoints than the config names also reads a marker that makes it rerun (and the new
# checkpoints be made), with or without Snakemake's metadata (workflow.rerun_marker).

# what the tables read, as the config names it (each also an input of its rule)
VERDICT_FILES = wf.verdict_files(config)
SECOND_ATTEMPT_VERDICT_FILES = wf.second_attempt_verdict_files(config)

rule frontier:
    input:
        verdicts=VERDICT_FILES,
        problems=EVAL_PROBLEMS,
        rerun=grid.rerun_if_inputs_changed(
            layout.FRONTIER, [*VERDICT_FILES, EVAL_PROBLEMS]
        ),
    output:
        frontier=layout.FRONTIER,
        clusters=layout.CLUSTERS,
    params:
        provenance=grid.provenance("aggregate"),
        merges=wf.merge_options(config),
        seed=wf.run_seed(config),
    threads: grid.threads("frontier")
    resources:
        **grid.resources("frontier"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("frontier"),
    benchmark:
        layout.benchmark("frontier")
    shell:
        "codefrontier {params.provenance} frontier --problems {input.problems} "
        "--verdicts {input.verdicts} {params.merges} --out {output.frontier} "
        "--clusters {output.clusters} --seed {params.seed} > {log} 2>&1"


rule ensemble:
    input:
        verdicts=VERDICT_FILES,
        second_attempts=SECOND_ATTEMPT_VERDICT_FILES,
        rerun=grid.rerun_if_inputs_changed(
            layout.ENSEMBLE, [*VERDICT_FILES, *SECOND_ATTEMPT_VERDICT_FILES]
        ),
    output:
        layout.ENSEMBLE,
    params:
        provenance=grid.provenance("aggregate"),
        merges=wf.merge_options(config),
        second_attempts=wf.flag_once("--second-attempts", "second_attempts"),
        seed=wf.run_seed(config),
    threads: grid.threads("ensemble")
    resources:
        **grid.resources("ensemble"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("ensemble"),
    benchmark:
        layout.benchmark("ensemble")
    shell:
        "codefrontier {params.provenance} ensemble --verdicts {input.verdicts} {params.merges} "
        "{params.second_attempts} --seed {params.seed} --out {output} > {log} 2>&1"


rule plots:
    input:
        frontier=layout.FRONTIER,
        ensemble=layout.ENSEMBLE,
    output:
        report(
            expand(layout.CHART, chart=layout.CHARTS),
            caption="../docs/report/plots.rst",
            category="Frontier",
        ),
        expand(layout.CHART_HTML, chart=layout.CHARTS),
    params:
        out_dir=wf.output_folder,
        provenance=grid.provenance("plots"),
    threads: grid.threads("plots")
    resources:
        **grid.resources("plots"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("plots"),
    benchmark:
        layout.benchmark("plots")
    shell:
        "codefrontier {params.provenance} plots --frontier {input.frontier} --ensemble {input.ensemble} "
        "--out-dir {params.out_dir} > {log} 2>&1"


# Does this run show a frontier? The headline claims, checked on its own tables.
rule claims:
    input:
        frontier=layout.FRONTIER,
        clusters=layout.CLUSTERS,
        ensemble=layout.ENSEMBLE,
        merges=wf.merge_records(config),
        second_attempts=[layout.SECOND_ATTEMPT_TABLE] if wf.first_attempt_verdict_files(config) else [],
    output:
        report(layout.CLAIMS, caption="../docs/report/claims.rst", category="Frontier"),
    params:
        second_attempts=wf.flag_once("--second-attempts", "second_attempts"),
        provenance=grid.provenance("claims"),
    threads: grid.threads("claims")
    resources:
        **grid.resources("claims"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("claims"),
    benchmark:
        layout.benchmark("claims")
    shell:
        "codefrontier {params.provenance} claims --frontier {input.frontier} "
        "--clusters {input.clusters} --ensemble {input.ensemble} "
        "--merges {input.merges} {params.second_attempts} --out {output} > {log} 2>&1"


# Repair rates by the first attempt's failure (config `repair.checkpoints`).
rule second_attempt_table:
    input:
        verdicts=wf.first_attempt_verdict_files(config),
        second_attempts=SECOND_ATTEMPT_VERDICT_FILES,
    output:
        layout.SECOND_ATTEMPT_TABLE,
    params:
        provenance=grid.provenance("second_attempt_table"),
        seed=wf.run_seed(config),
    threads: grid.threads("second_attempt_table")
    resources:
        **grid.resources("second_attempt_table"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("second_attempt_table"),
    benchmark:
        layout.benchmark("second_attempt_table")
    shell:
        "codefrontier {params.provenance} second-attempt table --verdicts {input.verdicts} "
        "--seed {params.seed} --out {output} > {log} 2>&1"
