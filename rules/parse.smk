rule novbench_parse:
    input:
        f"{RESULTS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/responses.parquet",
    output:
        f"{RESULTS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/parsed.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/parse.log",
    conda:
        "../envs/noveval.yaml"
    params:
        think_opened=lambda wildcards: REGISTRY.model(
            wildcards.model
        ).think_opened_by_template,
    script:
        "../scripts/novbench_parse.py"
