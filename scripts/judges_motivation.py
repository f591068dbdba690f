"""Rule judges_motivation: one judge, two prompts, each setup."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.motivation(
        snakemake.input[0], snakemake.params.model, snakemake.params.changes, snakemake.output[0]
    )
