"""Rule novbench_parse: model outputs → labelled items and failure flags."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    steps.parse_responses(
        snakemake.input[0],
        {
            "model": wildcards.model,
            "strategy": wildcards.strategy,
            "perturbation": wildcards.perturbation,
        },
        snakemake.output[0],
        snakemake.params.think_opened,
        snakemake.params.keep_duplicates,
    )
