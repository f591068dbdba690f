"""Rules novbench_score and novbench_score_human: per-paper scores of one cell."""

from noveval.logs import log_to
from noveval.novbench import steps

HUMAN_CELL = {"model": "human", "strategy": "-", "perturbation": "-"}

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    is_human = "parsed" not in snakemake.input.keys()
    steps.score(
        papers_path=snakemake.input.papers,
        parsed_path=None if is_human else snakemake.input.parsed,
        cell=HUMAN_CELL
        if is_human
        else {
            "model": wildcards.model,
            "strategy": wildcards.strategy,
            "perturbation": wildcards.perturbation,
        },
        scoring=snakemake.params.scoring,
        registry_path=snakemake.params.registry,
        scores_path=snakemake.output[0],
    )
