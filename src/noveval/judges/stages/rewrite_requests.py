"""Stage judges_rewrite_requests: one purpose-mechanism rewrite per idea of a setup."""

from __future__ import annotations

import logging

from noveval.core.jobs import call_with_job
from noveval.inference.requests import RequestsTarget, write_requests
from noveval.judges import instances, rewrites

log = logging.getLogger(__name__)


def rewrite_requests(target: RequestsTarget, instances_path: str, settings: dict) -> None:
    """One rewrite request per idea: the purpose-mechanism form of a setup's ideas."""
    spec = target.spec()
    table = instances.read_instances(instances_path)
    rows = rewrites.rewrite_requests(
        table,
        spec,
        {**target.decoding, "max_tokens": settings["rewrite_max_tokens"]},
        settings["structured_output"],
    )
    write_requests(rows, target.requests_path, log, target.model, "rewrites")


def run(job) -> None:
    """One job of rule judges_rewrite_requests."""
    call_with_job(rewrite_requests, job, target=RequestsTarget.of_job(job))
