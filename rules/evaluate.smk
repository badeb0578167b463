# Samples and verdicts for every checkpoint (sft, rl-<reward>, a<alpha>) in every setting.


rule sample:
    input:
        model=grid.checkpoint_input,
        problems=EVAL_PROBLEMS,
    output:
        layout.SAMPLES,
    params:
        model=grid.checkpoint,
        options=grid.options("sample"),
        provenance=grid.provenance("sample"),
    threads: grid.threads("sample")
    resources:
        **grid.resources("sample"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("sample"),
    benchmark:
        layout.benchmark("sample")
    shell:
        "codefrontier {params.provenance} sample "
        "--model {params.model} --problems {input.problems} --setting {wildcards.setting} "
        "{params.options} --judge-workers {threads} --quiet --out {output} "
        "> {log} 2>&1"


rule judge:
    input:
        samples=layout.SAMPLES,
        problems=EVAL_PROBLEMS,
    output:
        layout.VERDICTS,
    params:
        provenance=grid.provenance("judge"),
    threads: grid.threads("judge")
    resources:
        **grid.resources("judge"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("judge"),
    benchmark:
        layout.benchmark("judge")
    shell:
        "codefrontier {params.provenance} judge --problems {input.problems} "
        "--samples {input.samples} --workers {threads} --quiet --out {output} > {log} 2>&1"


# Repair at evaluation (config `repair.checkpoints`): a second attempt at each failed
# sample, given why it failed, judged like any sample.
rule second_attempt:
    input:
        model=grid.checkpoint_input,
        problems=EVAL_PROBLEMS,
        samples=layout.SAMPLES,
        verdicts=layout.VERDICTS,
    output:
        layout.SECOND_ATTEMPT_SAMPLES,
    params:
        model=grid.checkpoint,
        options=grid.options("second_attempt"),
        provenance=grid.provenance("second_attempt"),
    threads: grid.threads("second_attempt")
    resources:
        **grid.resources("second_attempt"),
    conda:
        "../envs/codefrontier.yaml"
    log:
        layout.log("second_attempt"),
    benchmark:
        layout.benchmark("second_attempt")
    shell:
        "codefrontier {params.provenance} second-attempt sample "
        "--model {params.model} --problems {input.problems} --samples {input.samples} "
        "--verdicts {input.verdicts} {params.options} --judge-workers {threads} --quiet "
        "--out {output} > {log} 2>&1"


use rule judge as judge_second_attempt with:
    input:
        samples=layout.SECOND_ATTEMPT_SAMPLES,
        problems=EVAL_PROBLEMS,
    output:
        layout.SECOND_ATTEMPT_VERDICTS,
    log:
        layout.log("judge_second_attempt"),
    benchmark:
        layout.benchmark("judge_second_attempt")
