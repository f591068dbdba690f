"""Stage construction_novbench_extraction_requests: a validated prompt's calls on its labelled
sentences."""

from __future__ import annotations

from noveval.construction import extraction
from noveval.construction.validation import labelled_sentences
from noveval.core.jobs import call_with_job
from noveval.inference.requests import RequestsTarget, write_requests


def validation_requests(
    target: RequestsTarget, prompt: str, upstream_root: str, labels: dict
) -> None:
    """The first-round requests of one validated prompt on its labelled sentences."""
    spec = target.spec()
    sentences = labelled_sentences(prompt, labels)
    rows = extraction.prompt_requests(sentences, prompt, spec, target.decoding, upstream_root)
    write_requests(rows, target.requests_path)


def run(job) -> None:
    """One job of rule construction_novbench_extraction_requests."""
    call_with_job(validation_requests, job, target=RequestsTarget.of_job(job))
