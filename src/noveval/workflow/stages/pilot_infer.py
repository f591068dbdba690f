"""Stage pilot_infer: one model's pilot calls through the real path, and what this run sent."""

from __future__ import annotations

from noveval.cluster.pilot import run_pilot
from noveval.inference.job import job_arguments


def run(job) -> None:
    """One job of rule pilot_infer."""
    wildcards = job.wildcards
    run_pilot(
        sent_path=job.output.sent,
        **job_arguments(job),
        responses_path=job.output.answers,
        job=f"pilot/{wildcards.track}/{wildcards.model}",
    )
