"""Stage construction_judges_requests: one construction step's requests (signals, strip or
generation)."""

from __future__ import annotations

import logging

from noveval.construction import judge_calls, selection
from noveval.core.files import read_json
from noveval.core.jobs import call_with_job
from noveval.inference.requests import RequestsTarget, write_requests

log = logging.getLogger(__name__)


STAGE_REQUESTS = {
    "signals": judge_calls.signal_requests,
    "strip": judge_calls.strip_requests,
    "generation": judge_calls.generation_requests,
}


def stage_requests(
    target: RequestsTarget, stage: str, source_path: str, upstream_root: str
) -> None:
    """One construction step's requests: the candidates' reviews (signals), the labelled papers'
    abstracts (strip) or one idea per D₊ paper's area (generation)."""
    papers = read_json(source_path)
    if stage == "generation":
        papers = [paper for paper in papers if paper["pool"] == selection.POSITIVE]
    rows = STAGE_REQUESTS[stage](papers, upstream_root, target.spec(), target.decoding)
    write_requests(rows, target.requests_path, log, f"{target.model} {stage}")


def run(job) -> None:
    """One job of rule construction_judges_requests."""
    call_with_job(stage_requests, job, target=RequestsTarget.of_job(job))
