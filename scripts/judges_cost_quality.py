"""Rule judges_cost_quality: the cost–quality scatter from the metrics."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.cost_quality(list(snakemake.input.metrics), snakemake.output[0])
