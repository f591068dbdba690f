"""Rule weights: download one open model's weights into the shared cache, write its manifest."""

from noveval.logs import log_to
from noveval.weights import download

with log_to(snakemake.log[0]):
    download(
        model=snakemake.wildcards.model,
        repo_id=snakemake.params.reference,
        revision=snakemake.params.revision,
        cache=snakemake.params.cache,
        manifest=snakemake.output[0],
        allow_unpinned=snakemake.params.allow_unpinned,
        lock=snakemake.params.lock,
    )
