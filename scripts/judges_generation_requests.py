"""Rule judges_generation_requests: one generated D₋ idea per pair, from its area alone."""

from noveval.judges.stages import instances
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    instances.generation_requests(
        pairs_path=snakemake.input[0],
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        max_tokens=snakemake.params.max_tokens,
        requests_path=snakemake.output[0],
    )
