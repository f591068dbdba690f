from noveval.novbench.grid import scorer_references


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
        code=code_version("noveval.novbench.scoring", step="noveval.novbench.steps"),
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
        scorers=scorer_references(REGISTRY, config["novbench"]["scoring"]),
    script:
        "../scripts/novbench_score.py"
