"""Rule infer: serve the model once, send the calls of the batch's chunk that no journal has
answered, write their responses."""

from noveval.inference import job_arguments, run_inference
from noveval.logs import log_to

wildcards = snakemake.wildcards
with log_to(snakemake.log[0]):
    run_inference(
        **job_arguments(snakemake),
        responses_path=snakemake.output[0],
        job="/".join(
            [wildcards.track, wildcards.dataset, wildcards.model, wildcards.batch, wildcards.chunk]
        ),
        chunk=wildcards.chunk,
    )
