"""Stage judges_search_contribution_requests: the literature search's first LLM step per idea."""

from __future__ import annotations

import logging

from noveval.core.registry import load_registry
from noveval.inference.requests import requests_job_arguments, write_requests
from noveval.judges import instances
from noveval.judges.search_calls import search_decoding, search_prompts, shown_ideas

log = logging.getLogger(__name__)


def search_contribution_requests(
    instances_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    upstream_root: str | None = None,
) -> None:
    """Step 1 of the assisted search: one contributions request per idea of a setup."""
    from noveval.literature import assisted_search

    spec = load_registry(registry_path).model(model)
    ideas = shown_ideas(instances.read_instances(instances_path))
    call, constraint = search_decoding(
        spec, decoding, settings, assisted_search.CONTRIBUTIONS_SCHEMA
    )
    rows = assisted_search.contribution_requests(
        ideas,
        search_prompts(settings, upstream_root),
        spec,
        call,
        settings["retrieval"]["max_contributions"],
        constraint,
    )
    write_requests(rows, requests_path, log, model, "contribution requests")


def run(job) -> None:
    """One job of rule judges_search_contribution_requests."""
    search_contribution_requests(
        **requests_job_arguments(job),
        instances_path=job.input.instances,
        settings=job.params.settings,
        upstream_root=job.params.upstream_root,
    )
