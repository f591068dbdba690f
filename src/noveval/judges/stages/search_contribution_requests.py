"""Stage judges_search_contribution_requests: the literature search's first LLM step per idea."""

from __future__ import annotations

import logging

from noveval.core.jobs import call_with_job
from noveval.inference.requests import RequestsTarget, write_requests
from noveval.judges import instances
from noveval.judges.search_calls import search_calls, shown_ideas

log = logging.getLogger(__name__)


def search_contribution_requests(
    target: RequestsTarget,
    instances_path: str,
    settings: dict,
    upstream_root: str | None = None,
) -> None:
    """Step 1 of the assisted search: one contributions request per idea of a setup."""
    from noveval.literature import assisted_search

    rows = assisted_search.contribution_requests(
        shown_ideas(instances.read_instances(instances_path)),
        search_calls(target, settings, upstream_root, assisted_search.CONTRIBUTIONS_SCHEMA),
        settings["retrieval"]["max_contributions"],
    )
    write_requests(rows, target.requests_path, log, target.model, "contribution requests")


def run(job) -> None:
    """One job of rule judges_search_contribution_requests."""
    call_with_job(search_contribution_requests, job, target=RequestsTarget.of_job(job))
