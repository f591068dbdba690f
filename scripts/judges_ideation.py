"""Rule judges_ideation: the ideation-system comparison from the pairwise metrics."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.ideation_report(snakemake.input[0], snakemake.output.csv, snakemake.output.markdown)
