"""Stage judges_generation_requests: one generated D₋ idea per pair, from its area alone."""

from __future__ import annotations

import logging

from noveval.core.registry import load_registry
from noveval.inference.requests import requests_job_arguments, write_requests
from noveval.judges import generation, instances

log = logging.getLogger(__name__)


def generation_requests(
    pairs_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    max_tokens: int,
    requests_path: str,
) -> None:
    """One generated D₋ idea per pair of the base setup, from its primary area only."""
    spec = load_registry(registry_path).model(model)
    rows = generation.generation_requests(
        instances.read_instances(pairs_path), spec, {**decoding, "max_tokens": max_tokens}
    )
    write_requests(rows, requests_path, log, model, "ideas to generate")


def run(job) -> None:
    """One job of rule judges_generation_requests."""
    generation_requests(
        **requests_job_arguments(job),
        pairs_path=job.input[0],
        max_tokens=job.params.max_tokens,
    )
