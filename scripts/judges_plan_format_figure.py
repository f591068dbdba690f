"""Rule judges_plan_format_figure: the changes on ideas as plans, from the pairwise metrics."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.plan_format_figure(snakemake.input[0], snakemake.params.changes, snakemake.output[0])
