from noveval.judges.summary import local_compute


# The judge track's verdicts per cell and metrics per dataset and format.
rule judges_verdicts:
    input:
        instances=f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
        responses=lambda wildcards: JUDGES.responses(RESULTS, wildcards),
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/verdicts.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/verdicts.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version(
            "noveval.judges.verdicts",
            "noveval.judges.aggregation",
            step="noveval.judges.steps",
        ),
        cell=JUDGES.response_cell,
        protocol=config_slice(
            config["judges"], "prompts", "no_aggregation", "even_split", "all_failed"
        ),
    script:
        "../scripts/judges_verdicts.py"


rule judges_metrics:
    input:
        verdicts=lambda wildcards: JUDGES.verdict_paths(
            RESULTS, wildcards.dataset, wildcards.format
        ),
    output:
        parquet=f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.parquet",
        csv=report(
            f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.csv",
            caption="../report/judges_metrics.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "{format}",
                "result": "metrics",
                "file": "CSV",
            },
        ),
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/metrics.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version(
            "noveval.judges.summary",
            "noveval.judges.statistics",
            step="noveval.judges.steps",
        ),
        bootstrap=config["judges"]["bootstrap"],
        substitutes=JUDGES.substitutes,
        compute=local_compute(
            REGISTRY,
            config["judges"]["models"],
            config["inference"]["concurrency"],
            config["judges"]["compute_usd_per_hour"],
        ),
    script:
        "../scripts/judges_metrics.py"
