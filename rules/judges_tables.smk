# The judge track's tables, from the metrics alone.
rule judges_tables:
    input:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.parquet",
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/{{format}}/tables.md",
            caption="../report/judges_tables.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "{format}",
                "result": "tables",
                "file": "Markdown",
            },
        ),
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/tables.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version("noveval.judges.tables", step="noveval.judges.steps"),
    script:
        "../scripts/judges_tables.py"


rule judges_ideation:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/metrics.parquet",
    output:
        report(
            f"{RESULTS}/judges/{{dataset}}/ideation.md",
            caption="../report/judges_ideation.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "ideation comparison",
                "file": "Markdown",
            },
        ),
    log:
        f"{LOGS}/judges/{{dataset}}/ideation.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version("noveval.judges.tables", step="noveval.judges.steps"),
    script:
        "../scripts/judges_ideation.py"
