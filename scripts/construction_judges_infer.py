"""Rule construction_judges_infer: answer one construction step's requests through the request
layer and the model's journal."""

from noveval.inference import job_arguments, run_inference
from noveval.logs import log_to

wildcards = snakemake.wildcards
with log_to(snakemake.log[0]):
    run_inference(
        **job_arguments(snakemake),
        responses_path=snakemake.output[0],
        job=f"construction/judges/{wildcards.model}/{wildcards.stage}",
    )
