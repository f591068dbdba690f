"""Rule judges_tables: grid, tie-rate and flip-rate tables from the metrics."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.report_tables(snakemake.input[0], snakemake.output[0])
