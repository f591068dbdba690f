from noveval.novbench.grid import scorer_names, scorer_references
from noveval.scoring_cost import SCORING_THREADS, scoring_resources
from noveval.weights import scorer_weights_inputs


rule novbench_score:
    input:
        papers=f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
        parsed=lambda wildcards: NOVBENCH.parsed_paths(
            RESULTS, wildcards.dataset, wildcards.model
        ),
        # the hub scorers, downloaded by rule weights at their pinned revisions, read offline
        weights=scorer_weights_inputs(
            REGISTRY, scorer_names(config["novbench"]["scoring"]), RESULTS
        ),
    output:
        f"{RESULTS}/novbench/{{dataset}}/{{model}}/scores.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/score.log",
    benchmark:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/score.benchmark.tsv"
    conda:
        "../envs/noveval.yaml"
    threads: SCORING_THREADS
    resources:
        **scoring_resources(config),
    params:
        code=stage_code("novbench_score"),
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
        scorers=scorer_references(REGISTRY, config["novbench"]["scoring"]),
    script:
        "../scripts/stage.py"
