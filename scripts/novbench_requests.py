"""Rule novbench_requests: the chat requests of one grid cell."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.generation_requests(
        inputs_path=snakemake.input.inputs,
        papers_path=snakemake.input.papers,
        strategy=snakemake.wildcards.strategy,
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        settings=snakemake.params.settings,
        requests_path=snakemake.output[0],
        upstream_root=snakemake.params.upstream_root,
        weights_manifests=list(snakemake.input.weights),
        source_roots=dict(snakemake.params.source_roots),
    )
