"""Rule novbench_paper_type_table: Tables 6 and 7, the scores per paper type."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.paper_type_table(
        list(snakemake.input.scores), snakemake.input.labels, snakemake.output[0]
    )
