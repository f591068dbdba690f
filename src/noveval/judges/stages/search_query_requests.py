"""Stage judges_search_query_requests: the literature search's second LLM step (its queries)."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.jobs import call_with_job
from noveval.inference.batches import read_responses
from noveval.inference.requests import RequestsTarget, write_requests
from noveval.judges import instances
from noveval.judges.search_calls import search_calls, shown_ideas

log = logging.getLogger(__name__)


def search_query_requests(
    target: RequestsTarget,
    instances_path: str,
    responses_path: str,
    responses_cell: str,
    settings: dict,
    upstream_root: str | None = None,
) -> None:
    """Step 2: one query-writing request per idea whose contributions could be read."""
    from noveval.literature import assisted_search

    ideas = shown_ideas(instances.read_instances(instances_path))
    answers = read_responses(responses_path, responses_cell)
    texts = {row.item_id: row.text for row in answers.itertuples() if pd.isna(row.error)}
    rows = assisted_search.query_requests(
        ideas,
        texts,
        search_calls(target, settings, upstream_root, assisted_search.QUERIES_SCHEMA),
        settings["retrieval"]["n_queries"],
    )
    if len(rows) < len(ideas):
        log.warning(
            "%d of %d ideas: no contributions could be read from the answer; they get no "
            "queries and no related work",
            len(ideas) - len(rows),
            len(ideas),
        )
    write_requests(rows, target.requests_path)


def run(job) -> None:
    """One job of rule judges_search_query_requests."""
    call_with_job(search_query_requests, job, target=RequestsTarget.of_job(job))
