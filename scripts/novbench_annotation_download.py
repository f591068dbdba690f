"""Rule novbench_annotation_download: fetch a dataset's annotation file, checking its SHA-256."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.download_annotation(
        snakemake.params.url,
        snakemake.params.sha256,
        f"{snakemake.wildcards.dataset}.{snakemake.wildcards.kind}",
        snakemake.output[0],
    )
