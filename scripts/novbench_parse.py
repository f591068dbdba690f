"""Rule novbench_parse: model outputs → labelled items and failure flags."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.parse_responses(snakemake.input[0], snakemake.output[0])
