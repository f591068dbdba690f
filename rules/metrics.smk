rule novbench_score:
    input:
        papers=f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
        parsed=f"{RESULTS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/parsed.parquet",
    output:
        f"{RESULTS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/scores.parquet",
    params:
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
    threads: 2
    log:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/score.log",
    benchmark:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/{{strategy}}-{{perturbation}}/score.benchmark.tsv"
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/novbench_score.py"


rule novbench_score_human:
    input:
        papers=f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
    output:
        f"{RESULTS}/novbench/{{dataset}}/human/scores.parquet",
    params:
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
    threads: 2
    log:
        f"{LOGS}/novbench/{{dataset}}/human/score.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/novbench_score.py"
