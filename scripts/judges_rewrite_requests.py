"""Rule judges_rewrite_requests: one purpose-mechanism rewrite per idea of a setup."""

from noveval.judges.stages import instances
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    instances.rewrite_requests(
        instances_path=snakemake.input[0],
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        settings=snakemake.params.settings,
        requests_path=snakemake.output[0],
    )
