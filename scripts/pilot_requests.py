"""Rule pilot_requests: the first papers or judge instances of each of a model's pilot cells."""

from noveval.logs import log_to
from noveval.pilot import pilot_requests

with log_to(snakemake.log[0]):
    pilot_requests(list(snakemake.input), snakemake.params.per_cell, snakemake.output[0])
