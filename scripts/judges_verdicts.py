"""Rule judges_verdicts: one cell's responses → one aggregated verdict per instance."""

from noveval.judges.stages import verdicts
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    verdicts.verdicts(
        snakemake.input.instances,
        snakemake.input.responses,
        snakemake.params.cell,
        {"model": wildcards.model, "setup": wildcards.setup, "change": wildcards.change},
        snakemake.output[0],
        protocol=snakemake.params.protocol,
    )
