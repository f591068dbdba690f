"""Rule upstream_file: fetch one pinned file of the authors' repository, checking its SHA-256."""

from noveval import upstream
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    upstream.fetch(
        upstream.pin(snakemake.wildcards.study, snakemake.wildcards.path),
        snakemake.output[0],
        snakemake.params.mirror,
    )
