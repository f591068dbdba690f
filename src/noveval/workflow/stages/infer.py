"""Stage infer: serve the model once, send the calls of the batch's chunk that no journal has
answered, write their responses."""

from __future__ import annotations

from noveval.inference.job import job_arguments, run_inference


def run(job) -> None:
    """One job of rule infer."""
    wildcards = job.wildcards
    run_inference(
        **job_arguments(job),
        responses_path=job.output[0],
        job="/".join(
            [wildcards.track, wildcards.dataset, wildcards.model, wildcards.batch, wildcards.chunk]
        ),
        chunk=wildcards.chunk,
    )
