"""Stage judges_rewrite_requests: one purpose-mechanism rewrite per idea of a setup."""

from __future__ import annotations

import logging

from noveval.core.files import write_table
from noveval.core.registry import load_registry
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
    log.info("%s: %d rewrites", model, len(rows))
    write_table(rows, requests_path)


def run(job) -> None:
    """One job of rule judges_rewrite_requests."""
    rewrite_requests(
        instances_path=job.input[0],
        model=job.wildcards.model,
        registry_path=job.params.registry,
        decoding=job.params.decoding,
        settings=job.params.settings,
        requests_path=job.output[0],
    )
