# The judge track's figures, from the metrics alone.
rule judges_cost_quality:
    input:
        metrics=lambda wildcards: JUDGES.metrics_paths(RESULTS, wildcards.dataset),
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/cost_quality.png",
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
        f"{LOGS}/judges/{{dataset}}/cost_quality.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_cost_quality"),
    script:
        "../scripts/stage.py"


rule judges_motivation:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/metrics.parquet",
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/motivation.png",
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
        f"{LOGS}/judges/{{dataset}}/motivation.log",
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
            f"{RESULTS}/judges/{{dataset}}/d_minus_sources.png",
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
        f"{LOGS}/judges/{{dataset}}/d_minus_sources.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_d_minus_sources"),
    script:
        "../scripts/stage.py"


rule judges_controlled_study:
    input:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.parquet",
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/{{format}}/controlled_study.png",
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
        f"{LOGS}/judges/{{dataset}}/{{format}}/controlled_study.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_controlled_study"),
    script:
        "../scripts/stage.py"


rule judges_soft_accuracy:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/metrics.parquet",
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/pairwise/soft_accuracy.png",
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
        f"{LOGS}/judges/{{dataset}}/soft_accuracy.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_soft_accuracy"),
    script:
        "../scripts/stage.py"


rule judges_plan_format_figure:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/metrics.parquet",
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/pairwise/plan_format.png",
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
        f"{LOGS}/judges/{{dataset}}/plan_format_figure.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_plan_format_figure"),
        changes=lambda wildcards: JUDGES.other_format_changes(
            wildcards.dataset, "pairwise"
        ),
    script:
        "../scripts/stage.py"
