# Looking inside a run: every training run's curves per step (rule all: seconds), and every
# checkpoint's samples as Inspect logs for Inspect's viewer (asked for by name:
# `snakemake -c2 results/inspect`; it needs the inspect extra).

TRAINING_RUNS = wf.training_runs(config)
TRAINING_CHARTS = wf.training_charts(config)


rule training:
    input:
        TRAINING_RUNS,
    output:
        layout.TRAINING,
    params:
        provenance=grid.provenance("training"),
        seed=wf.run_seed(config),
    threads: grid.threads("training")
    resources:
        **grid.resources("training"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("training"),
    benchmark:
        layout.benchmark("training")
    shell:
        "codefrontier {params.provenance} training --runs {input} --seed {params.seed} "
        "--out {output} > {log} 2>&1"


rule training_plots:
    input:
        layout.TRAINING,
    output:
        report(
            expand(layout.TRAINING_CHART, curves=TRAINING_CHARTS),
            caption="../docs/report/training.rst",
            category="Training",
        ),
        expand(layout.TRAINING_CHART_HTML, curves=TRAINING_CHARTS),
    params:
        out_dir=wf.output_folder,
        charts=TRAINING_CHARTS,
        provenance=grid.provenance("training_plots"),
    threads: grid.threads("training_plots")
    resources:
        **grid.resources("training_plots"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("training_plots"),
    benchmark:
        layout.benchmark("training_plots")
    shell:
        "codefrontier {params.provenance} training-plots --training {input} "
        "--out-dir {params.out_dir} --charts {params.charts} > {log} 2>&1"


rule inspect_logs:
    input:
        verdicts=VERDICT_FILES,
        problems=EVAL_PROBLEMS,
        frontier=layout.FRONTIER,
    output:
        directory(layout.INSPECT_LOGS),
    params:
        results=wf.results_folder,
        provenance=grid.provenance("inspect_logs"),
        seed=wf.run_seed(config),
    threads: grid.threads("inspect_logs")
    resources:
        **grid.resources("inspect_logs"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("inspect_logs"),
    benchmark:
        layout.benchmark("inspect_logs")
    shell:
        "codefrontier {params.provenance} export inspect {params.results} {output} "
        "--verdicts {input.verdicts} --problems {input.problems} --seed {params.seed} "
        "> {log} 2>&1"
