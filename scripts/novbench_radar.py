"""Rule novbench_radar: the sentiment radar from the scores tables."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.sentiment_radar(list(snakemake.input.scores), snakemake.output[0])
