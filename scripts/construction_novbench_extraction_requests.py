"""Rule novbench_extraction_requests: a validated prompt's calls on its labelled sentences."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.validation_requests(
        snakemake.wildcards.prompt,
        snakemake.wildcards.model,
        snakemake.params.registry,
        snakemake.params.decoding,
        snakemake.params.upstream_root,
        snakemake.params.labels,
        snakemake.output[0],
    )
