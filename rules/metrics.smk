ruleorder: novbench_score_human > novbench_score


rule novbench_score:
    input:
        papers=f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
        parsed=lambda wildcards: NOVBENCH.parsed_paths(
            RESULTS, wildcards.dataset, wildcards.model
        ),
    output:
        f"{RESULTS}/novbench/{{dataset}}/{{model}}/scores.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/score.log",
    benchmark:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/score.benchmark.tsv"
    conda:
        "../envs/noveval.yaml"
    threads: 2
    params:
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
    script:
        "../scripts/novbench_score.py"


rule novbench_score_human:
    input:
        papers=f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
    output:
        f"{RESULTS}/novbench/{{dataset}}/human/scores.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/human/score.log",
    benchmark:
        f"{LOGS}/novbench/{{dataset}}/human/score.benchmark.tsv"
    conda:
        "../envs/noveval.yaml"
    threads: 2
    params:
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
    script:
        "../scripts/novbench_score.py"
