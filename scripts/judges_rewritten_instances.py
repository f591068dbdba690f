"""Rule judges_rewritten_instances: purpose-mechanism instances (release file or LLM rewrites)."""

from noveval.judges.stages import instances
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    instances.rewritten_instances(
        setup=snakemake.wildcards.setup,
        format=snakemake.wildcards.format,
        rewritten_path=snakemake.output[0],
        release_path=snakemake.input.get("release"),
        instances_path=snakemake.input.get("instances"),
        responses_path=snakemake.input.get("responses"),
        responses_cell=snakemake.params.cell,
        upstream_root=snakemake.params.upstream_root,
        pairs_path=next(iter(snakemake.input.get("pairs", [])), None),  # a list of one or none
    )
