"""Rule judges_expert_study: counts of the release's expert re-judgements."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.expert_study(snakemake.input[0], snakemake.output.csv, snakemake.output.markdown)
