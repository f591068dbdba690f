"""Rule novbench_human_eval_scores: the metrics of the human-evaluation samples' two outputs."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.human_eval_scores(
        list(snakemake.input),
        snakemake.params.scoring,
        snakemake.params.registry,
        snakemake.output[0],
    )
