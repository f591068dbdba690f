"""Rule novbench_papers: release JSON → papers table."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.load_papers(
        snakemake.input.release, snakemake.output[0], dict(snakemake.params.perturbations)
    )
