"""Rule judges_d_minus_sources: judge quality by the source of the D₋ ideas."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.d_minus_sources(list(snakemake.input.metrics), snakemake.output[0])
