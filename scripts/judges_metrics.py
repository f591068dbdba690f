"""Rule judges_metrics: one metrics row per judge × setup × change."""

from noveval.judges.stages import verdicts
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    verdicts.metrics(
        list(snakemake.input.verdicts),
        snakemake.wildcards.format,
        snakemake.params.bootstrap,
        snakemake.output.parquet,
        snakemake.output.csv,
        substitutes=snakemake.params.substitutes,
        compute=snakemake.params.compute,
    )
