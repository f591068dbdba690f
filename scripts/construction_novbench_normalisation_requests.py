"""Rule novbench_construction_normalisation_requests: each paper's novelty sentences and its
call normalising the review ones into the gold format."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.normalisation_requests(
        snakemake.input.papers,
        snakemake.input.sentences,
        snakemake.input.responses,
        snakemake.wildcards.model,
        snakemake.params.registry,
        snakemake.params.decoding,
        snakemake.params.upstream_root,
        snakemake.output.requests,
        snakemake.output.extracted,
        snakemake.output.skipped,
    )
