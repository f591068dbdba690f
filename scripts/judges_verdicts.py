"""Rule judges_verdicts: one cell's responses → one aggregated verdict per instance."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    steps.verdicts(
        snakemake.input.instances,
        snakemake.input.responses,
        snakemake.params.cell,
        {"model": wildcards.model, "setup": wildcards.setup, "change": wildcards.change},
        snakemake.output[0],
        protocol=snakemake.params.protocol,
    )
