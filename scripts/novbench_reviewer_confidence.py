"""Rule novbench_reviewer_confidence: Table 8, similarity to high- vs low-confidence reviews."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.reviewer_confidence_table(
        list(snakemake.input.responses),
        snakemake.input.pairs,
        snakemake.params.encoder,
        snakemake.params.registry,
        snakemake.output[0],
        list(snakemake.input.get("weights", [])),
    )
