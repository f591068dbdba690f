"""Stage construction_novbench_extraction_step_requests: the step prompt's second calls."""

from __future__ import annotations

from noveval.construction import extraction
from noveval.core.registry import load_registry
from noveval.inference.batches import read_responses
from noveval.inference.requests import write_requests


def step_requests(
    responses_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    upstream_root: str,
    requests_path: str,
) -> None:
    """The second calls of the step prompt, from the answers of its first."""
    spec = load_registry(registry_path).model(model)
    first = read_responses(responses_path, "step")
    rows = extraction.step_decision_requests(first, spec, decoding, upstream_root)
    write_requests(rows, requests_path)


def run(job) -> None:
    """One job of rule construction_novbench_extraction_step_requests."""
    step_requests(
        job.input.responses,
        job.wildcards.model,
        job.params.registry,
        job.params.decoding,
        job.params.upstream_root,
        job.output[0],
    )
