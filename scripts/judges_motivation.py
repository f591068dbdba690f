"""Rule judges_motivation: one judge, two prompts, each setup."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.motivation(
        snakemake.input[0], snakemake.params.model, snakemake.params.changes, snakemake.output[0]
    )
