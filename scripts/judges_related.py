"""Rule judges_related: top-k related abstracts per idea for the retrieval change."""

from noveval.judges.stages import retrieval
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    retrieval.related_work(
        instances_path=snakemake.input.instances,
        corpus_path=snakemake.input.corpus,
        encoder=snakemake.params.encoder,
        registry_path=snakemake.params.registry,
        top_k=snakemake.params.top_k,
        related_path=snakemake.output[0],
        weights_manifests=list(snakemake.input.get("weights", [])),
    )
