"""Rule judges_requests: every call of one judge cell."""

from noveval.judges.stages import verdicts
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    verdicts.requests(
        instances_path=snakemake.input.instances,
        change=snakemake.wildcards.change,
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        settings=snakemake.params.settings,
        requests_path=snakemake.output[0],
        related_path=snakemake.input.get("related"),
        upstream_root=snakemake.params.upstream_root,
    )
