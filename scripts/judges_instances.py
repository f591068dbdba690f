"""Rules judges_instances and judges_rewritten_instances: release YAML → instances table."""

from noveval.judges.stages import instances
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    instances.load_instances(
        snakemake.input.release,
        snakemake.wildcards.setup,
        snakemake.wildcards.format,
        snakemake.output[0],
        upstream_root=snakemake.params.upstream_root,
        pairs_path=next(iter(snakemake.input.get("pairs", [])), None),  # a list of one or none
    )
