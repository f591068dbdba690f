"""Rule novbench_human_agreement: Fleiss' kappa, agreement and Spearman's rho (Section 4.3)."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.human_agreement_table(
        list(snakemake.input.sheets), snakemake.input.scores, snakemake.output[0]
    )
