"""Rule judges_cost_quality: the cost–quality scatter from the metrics."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.cost_quality(list(snakemake.input.metrics), snakemake.output[0])
