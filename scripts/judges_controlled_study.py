"""Rule judges_controlled_study: quality per judge × change of one format, from the metrics."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.controlled_study(snakemake.input[0], snakemake.output[0])
