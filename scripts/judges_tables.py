"""Rule judges_tables: grid, tie-rate and flip-rate tables from the metrics."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.report_tables(snakemake.input[0], snakemake.output[0])
