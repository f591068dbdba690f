"""Stage judges_generation_requests: one generated D₋ idea per pair, from its area alone."""

from __future__ import annotations

import logging

from noveval.core.jobs import call_with_job
from noveval.inference.requests import RequestsTarget, write_requests
from noveval.judges import generation, instances

log = logging.getLogger(__name__)


def generation_requests(target: RequestsTarget, pairs_path: str, max_tokens: int) -> None:
    """One generated D₋ idea per pair of the base setup, from its primary area only."""
    rows = generation.generation_requests(
        instances.read_instances(pairs_path),
        target.spec(),
        {**target.decoding, "max_tokens": max_tokens},
    )
    write_requests(rows, target.requests_path, log, target.model, "ideas to generate")


def run(job) -> None:
    """One job of rule judges_generation_requests."""
    call_with_job(generation_requests, job, target=RequestsTarget.of_job(job))
