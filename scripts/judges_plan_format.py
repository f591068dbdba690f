"""Rule judges_plan_format: each change on ideas as plans beside it on the ideas as written."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.plan_format(snakemake.input.metrics, snakemake.output[0])
