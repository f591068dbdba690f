"""Rule judges_ideation_instances: a stronger generator's ideas against a weaker one's."""

from noveval.judges.stages import instances
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    instances.ideation_instances(
        snakemake.input.pairs,
        (snakemake.wildcards.stronger, snakemake.input.stronger),
        (snakemake.wildcards.weaker, snakemake.input.weaker),
        snakemake.params.cell,
        snakemake.output[0],
    )
