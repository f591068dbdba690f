"""Rule judges_soft_accuracy: pairwise soft accuracy per judge × change, from the metrics."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.soft_accuracy(snakemake.input[0], snakemake.output[0])
