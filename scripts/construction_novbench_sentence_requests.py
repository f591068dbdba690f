"""Rule novbench_construction_sentence_requests: one labelling call per sentence of a kind."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.sentence_requests(
        snakemake.input.sentences,
        snakemake.wildcards.kind,
        snakemake.wildcards.model,
        snakemake.params.registry,
        snakemake.params.decoding,
        snakemake.params.upstream_root,
        snakemake.params.calls,
        snakemake.output[0],
    )
