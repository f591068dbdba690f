# The judge track's figures, from the metrics alone.
rule judges_cost_quality:
    input:
        metrics=lambda wildcards: JUDGES.metrics_paths(RESULTS, wildcards.dataset),
    output:
        report(
            JUDGES_PATHS.output("cost_quality.png"),
            caption="../report/judges_cost_quality.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "cost vs quality",
                "file": "PNG",
            },
        ),
    log:
        JUDGES_PATHS.log("cost_quality"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_cost_quality"),
    script:
        "../scripts/stage.py"


rule judges_motivation:
    input:
        JUDGES_PATHS.metrics(format="pairwise"),
    output:
        report(
            JUDGES_PATHS.output("motivation.png"),
            caption="../report/judges_motivation.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "motivating figure",
                "file": "PNG",
            },
        ),
    log:
        JUDGES_PATHS.log("motivation"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_motivation"),
        model=JUDGES.motivation["model"],
        changes=JUDGES.motivation["changes"],
    script:
        "../scripts/stage.py"


rule judges_d_minus_sources:
    input:
        metrics=lambda wildcards: JUDGES.metrics_paths(RESULTS, wildcards.dataset),
    output:
        report(
            JUDGES_PATHS.output("d_minus_sources.png"),
            caption="../report/judges_d_minus_sources.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "quality by D₋ source",
                "file": "PNG",
            },
        ),
    log:
        JUDGES_PATHS.log("d_minus_sources"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_d_minus_sources"),
    script:
        "../scripts/stage.py"


rule judges_controlled_study:
    input:
        JUDGES_PATHS.metrics(),
    output:
        report(
            JUDGES_PATHS.format_output("controlled_study.png"),
            caption="../report/judges_controlled_study.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "{format}",
                "result": "controlled study",
                "file": "PNG",
            },
        ),
    log:
        JUDGES_PATHS.log("controlled_study"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_controlled_study"),
    script:
        "../scripts/stage.py"


rule judges_soft_accuracy:
    input:
        JUDGES_PATHS.metrics(format="pairwise"),
    output:
        report(
            JUDGES_PATHS.format_output("soft_accuracy.png", format="pairwise"),
            caption="../report/judges_soft_accuracy.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "soft accuracy",
                "file": "PNG",
            },
        ),
    log:
        JUDGES_PATHS.log("soft_accuracy"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_soft_accuracy"),
    script:
        "../scripts/stage.py"


rule judges_plan_format_figure:
    input:
        JUDGES_PATHS.metrics(format="pairwise"),
    output:
        report(
            JUDGES_PATHS.format_output("plan_format.png", format="pairwise"),
            caption="../report/judges_plan_format.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "idea as a plan",
                "file": "PNG",
            },
        ),
    log:
        JUDGES_PATHS.log("plan_format_figure"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_plan_format_figure"),
        changes=lambda wildcards: JUDGES.other_format_changes(
            wildcards.dataset, "pairwise"
        ),
    script:
        "../scripts/stage.py"
