"""Rule novbench_paraphrase_requests: paraphrase calls of the 'change' perturbation."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.paraphrase_requests(
        snakemake.input.papers,
        snakemake.wildcards.model,
        snakemake.params.registry,
        snakemake.params.decoding,
        snakemake.output[0],
        weights_manifests=list(snakemake.input.weights),
    )
