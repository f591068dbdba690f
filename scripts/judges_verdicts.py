"""Rule judges_verdicts: responses of one cell → one aggregated verdict per instance."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    steps.verdicts(
        snakemake.input.instances,
        snakemake.input.responses,
        {"model": wildcards.model, "setup": wildcards.setup, "change": wildcards.change},
        snakemake.output[0],
        protocol=snakemake.params.protocol,
    )
