"""Rule novbench_paper_type_requests: the authors' paper-type prompt, one call per paper."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.classification_requests(
        snakemake.input.papers,
        snakemake.input.script,
        snakemake.wildcards.model,
        snakemake.params.registry,
        snakemake.params.decoding,
        snakemake.output[0],
    )
