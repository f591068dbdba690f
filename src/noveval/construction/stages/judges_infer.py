"""Stage construction_judges_infer: answer one construction step's requests through the request
layer and the model's journal."""

from __future__ import annotations

from noveval.inference.job import job_arguments, run_inference


def run(job) -> None:
    """One job of rule construction_judges_infer."""
    wildcards = job.wildcards
    run_inference(
        **job_arguments(job),
        responses_path=job.output[0],
        job=f"construction/judges/{wildcards.model}/{wildcards.stage}",
    )
