"""Stage judges_rewrite_requests: one purpose-mechanism rewrite per idea of a setup."""

from __future__ import annotations

import logging

from noveval.core.registry import load_registry
from noveval.inference.requests import requests_job_arguments, write_requests
from noveval.judges import instances, rewrites

log = logging.getLogger(__name__)


def rewrite_requests(
    instances_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
) -> None:
    """One rewrite request per idea: the purpose-mechanism form of a setup's ideas."""
    spec = load_registry(registry_path).model(model)
    table = instances.read_instances(instances_path)
    rows = rewrites.rewrite_requests(
        table,
        spec,
        {**decoding, "max_tokens": settings["rewrite_max_tokens"]},
        settings["structured_output"],
    )
    write_requests(rows, requests_path, log, model, "rewrites")


def run(job) -> None:
    """One job of rule judges_rewrite_requests."""
    rewrite_requests(
        **requests_job_arguments(job),
        instances_path=job.input[0],
        settings=job.params.settings,
    )
