"""Stage construction_novbench_extraction_step_requests: the step prompt's second calls."""

from __future__ import annotations

from noveval.construction import extraction
from noveval.core.jobs import call_with_job
from noveval.inference.batches import read_responses
from noveval.inference.requests import RequestsTarget, write_requests


def step_requests(target: RequestsTarget, responses_path: str, upstream_root: str) -> None:
    """The second calls of the step prompt, from the answers of its first."""
    spec = target.spec()
    first = read_responses(responses_path, "step")
    rows = extraction.step_decision_requests(first, spec, target.decoding, upstream_root)
    write_requests(rows, target.requests_path)


def run(job) -> None:
    """One job of rule construction_novbench_extraction_step_requests."""
    call_with_job(step_requests, job, target=RequestsTarget.of_job(job))
