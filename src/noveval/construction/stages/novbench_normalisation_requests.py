"""Stage construction_novbench_normalisation_requests: each paper's novelty sentences and its
call normalising the review ones into the gold format."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.construction import authors, records
from noveval.core.files import write_table
from noveval.core.jobs import call_with_job
from noveval.inference.batches import read_responses
from noveval.inference.requests import RequestsTarget, build_request, write_requests

log = logging.getLogger(__name__)


def normalisation_requests(
    target: RequestsTarget,
    papers_path: str,
    sentences_path: str,
    responses_path: str,
    upstream_root: str,
    extracted_path: str,
    skipped_path: str,
) -> None:
    """The papers' novelty sentences (``extracted_path``) and one normalisation request per
    paper with both kinds, its review novelty sentences inserted as their list's repr (as the
    authors insert them); the papers with none of either are left out."""
    sentences = pd.read_parquet(sentences_path)
    answers = pd.concat(
        [read_responses(responses_path, cell) for cell in records.SENTENCE_CELLS.values()],
        ignore_index=True,
    )
    marked = records.novelty_sentences(sentences, answers)
    unanswered = int((~marked["answered"]).sum())
    if unanswered:
        log.warning("%d sentence calls failed; their sentences count as not novelty", unanswered)
    extracted, skipped = records.normalisation_inputs(pd.read_parquet(papers_path), marked)
    spec = target.spec()
    template = authors.template(upstream_root, "normalisation")
    rows = [
        build_request(
            item_id=paper["paper_id"],
            spec=spec,
            messages=[
                {"role": "user", "content": template.render(reviews=list(paper["review_novelty"]))}
            ],
            decoding=target.decoding,
        )
        for paper in extracted.to_dict("records")
    ]
    log.info("%d papers to normalise, %d left out", len(rows), len(skipped))
    write_table(extracted, extracted_path)
    write_table(skipped, skipped_path)
    write_requests(rows, target.requests_path)


def run(job) -> None:
    """One job of rule construction_novbench_normalisation_requests."""
    call_with_job(normalisation_requests, job, target=RequestsTarget.of_job(job))
