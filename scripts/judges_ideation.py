"""Rule judges_ideation: the ideation-system comparison from the pairwise metrics."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.ideation_report(snakemake.input[0], snakemake.output.csv, snakemake.output.markdown)
