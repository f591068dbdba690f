"""Rule judges_flip_rates: every change's flip rate against the reference, from the metrics."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.flip_rates(snakemake.input.metrics, snakemake.output.csv, snakemake.output.markdown)
