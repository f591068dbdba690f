"""Rule pilot: the measured file (throughput, answer lengths, server starts) of the pilot jobs."""

from noveval.logs import log_to
from noveval.pilot import measure_pilot

with log_to(snakemake.log[0]):
    measure_pilot(
        jobs=snakemake.params.jobs,
        registry_path=snakemake.params.registry,
        chars_per_token=snakemake.params.chars_per_token,
        output_path=snakemake.output[0],
    )
