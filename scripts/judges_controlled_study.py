"""Rule judges_controlled_study: quality per judge × change of one format, from the metrics."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.controlled_study(snakemake.input[0], snakemake.output[0])
