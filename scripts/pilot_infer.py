"""Rule pilot_infer: one model's pilot calls through the real path, and what this run sent."""

from noveval.inference import job_arguments
from noveval.logs import log_to
from noveval.pilot import run_pilot

wildcards = snakemake.wildcards
with log_to(snakemake.log[0]):
    run_pilot(
        sent_path=snakemake.output.sent,
        **job_arguments(snakemake),
        responses_path=snakemake.output.answers,
        job=f"pilot/{wildcards.track}/{wildcards.model}",
    )
