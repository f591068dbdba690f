"""Stage judges_requests: every call of one judge cell."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.jobs import call_with_job
from noveval.inference.requests import RequestsTarget, write_requests
from noveval.judges import instances
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.prompts import calls_of, judge_requests

log = logging.getLogger(__name__)


def requests(
    target: RequestsTarget,
    instances_path: str,
    change: str,
    settings: dict,
    related_path: str | None = None,
    upstream_root: str | None = None,
) -> None:
    """Every call of one judge cell (``change``: its change alone, whatever the form of the ideas
    in ``instances_path``; ``related_path``: the retrieval change's related work). The cell's
    folder (its form of the ideas) never enters a request: its ids are the calls' alone.

    ``settings['prompts'] == 'authors'`` renders the authors' prompts from ``upstream_root``.
    """
    spec = target.spec()
    authors = AuthorsPrompts(upstream_root) if settings["prompts"] == "authors" else None
    related = None
    if related_path:
        table = pd.read_parquet(related_path)
        related = {
            row.instance_id: [list(block) for block in row.related] for row in table.itertuples()
        }
    rows = judge_requests(
        instances.read_instances(instances_path).to_dict("records"),
        change=change,
        spec=spec,
        decoding={**target.decoding, "max_tokens": settings["max_tokens"]},
        calls=calls_of(change, settings["calls"], settings["calls_by_change"]),
        structured_output=settings["structured_output"],
        reasoning_chars=settings["reasoning_chars"],
        related=related,
        authors=authors,
        prompt_caching=settings["prompt_caching"],
        reasoning_summary=settings["reasoning_summary"],
    )
    write_requests(rows, target.requests_path, log, f"{target.model}/{change}", "calls")


def run(job) -> None:
    """One job of rule judges_requests."""
    call_with_job(requests, job, target=RequestsTarget.of_job(job))
