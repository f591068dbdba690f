"""Rule novbench_construction_retrieval: the top-k related corpus papers of every paper."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.retrieve(
        snakemake.input.papers,
        snakemake.params.corpus,
        snakemake.params.encoder,
        snakemake.params.top_k,
        snakemake.output[0],
    )
