"""Rule novbench_extraction_step_requests: the step prompt's second calls."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.step_requests(
        snakemake.input.responses,
        snakemake.wildcards.model,
        snakemake.params.registry,
        snakemake.params.decoding,
        snakemake.params.upstream_root,
        snakemake.output[0],
    )
