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
        code=code_version("noveval.judges.figures", step="noveval.judges.steps"),
    script:
        "../scripts/judges_cost_quality.py"


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
        code=code_version("noveval.judges.figures", step="noveval.judges.steps"),
        model=JUDGES.motivation["model"],
        changes=JUDGES.motivation["changes"],
    script:
        "../scripts/judges_motivation.py"


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
        code=code_version("noveval.judges.figures", step="noveval.judges.steps"),
    script:
        "../scripts/judges_d_minus_sources.py"
