"""Rule judges_flip_rates: every change's flip rate against its baselines, from the verdicts."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.flip_rates(
        {"pairwise": list(snakemake.input.pairwise), "pointwise": list(snakemake.input.pointwise)},
        snakemake.params.baselines,
        snakemake.output.csv,
        snakemake.output.markdown,
    )
