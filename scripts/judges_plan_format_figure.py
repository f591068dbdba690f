"""Rule judges_plan_format_figure: the changes on ideas as plans, from the pairwise metrics."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.plan_format_figure(snakemake.input[0], snakemake.params.changes, snakemake.output[0])
