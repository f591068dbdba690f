"""Rule judges_search_contribution_requests: the literature search's first LLM step per idea."""

from noveval.judges.stages import retrieval
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    retrieval.search_contribution_requests(
        instances_path=snakemake.input.instances,
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        settings=snakemake.params.settings,
        requests_path=snakemake.output[0],
        upstream_root=snakemake.params.upstream_root,
    )
