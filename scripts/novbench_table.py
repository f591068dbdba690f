"""Rule novbench_table: the Table 2 layout from the scores tables."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.table(
        list(snakemake.input.scores),
        snakemake.output.csv,
        snakemake.output.markdown,
        list(snakemake.input.weights),
    )
