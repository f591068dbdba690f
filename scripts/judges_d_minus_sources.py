"""Rule judges_d_minus_sources: judge quality by the source of the D₋ ideas."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.d_minus_sources(list(snakemake.input.metrics), snakemake.output[0])
