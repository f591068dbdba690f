from noveval.novbench.grid import scorer_names, scorer_references
from noveval.inference.scoring_cost import SCORING_THREADS, scoring_resources
from noveval.inference.weights import scorer_weights_inputs


rule novbench_score:
    input:
        papers=NOVBENCH_LAYOUT.papers(),
        parsed=lambda wildcards: NOVBENCH.parsed_paths(
            RESULTS, wildcards.dataset, wildcards.model
        ),
        # the hub scorers, downloaded by rule weights at their pinned revisions, read offline
        weights=scorer_weights_inputs(
            REGISTRY, scorer_names(config["novbench"]["scoring"]), RESULTS
        ),
    output:
        NOVBENCH_LAYOUT.scores(),
    log:
        NOVBENCH_LAYOUT.log("score"),
    benchmark:
        NOVBENCH_LAYOUT.log("score_benchmark")
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
