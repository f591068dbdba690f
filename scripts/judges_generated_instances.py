"""Rule judges_generated_instances: the generated setup's pairwise and pointwise instances."""

from noveval.judges.stages import instances
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    instances.generated_instances(
        snakemake.input.pairs,
        snakemake.input.responses,
        snakemake.params.cell,
        f"generated-{snakemake.wildcards.generator}",
        snakemake.output.pairwise,
        snakemake.output.pointwise,
        upstream_root=snakemake.params.upstream_root,
    )
