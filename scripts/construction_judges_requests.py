"""Rule construction_judges_requests: one construction step's requests (signals, strip or
generation)."""

from noveval.construction import judge_steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    judge_steps.stage_requests(
        stage=snakemake.wildcards.stage,
        source_path=snakemake.input.source,
        upstream_root=snakemake.params.upstream_root,
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        requests_path=snakemake.output[0],
    )
