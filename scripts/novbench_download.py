"""Rule novbench_download: fetch a release file, checking its SHA-256."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.download_release(
        snakemake.params.url,
        snakemake.params.sha256,
        snakemake.wildcards.dataset,
        snakemake.output[0],
    )
