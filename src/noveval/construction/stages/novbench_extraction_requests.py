"""Stage construction_novbench_extraction_requests: a validated prompt's calls on its labelled
sentences."""

from __future__ import annotations

from noveval.construction import extraction
from noveval.construction.validation import labelled_sentences
from noveval.core.registry import load_registry
from noveval.inference.requests import write_requests


def validation_requests(
    prompt: str,
    model: str,
    registry_path: str,
    decoding: dict,
    upstream_root: str,
    labels: dict,
    requests_path: str,
) -> None:
    """The first-round requests of one validated prompt on its labelled sentences."""
    spec = load_registry(registry_path).model(model)
    sentences = labelled_sentences(prompt, labels)
    rows = extraction.prompt_requests(sentences, prompt, spec, decoding, upstream_root)
    write_requests(rows, requests_path)


def run(job) -> None:
    """One job of rule construction_novbench_extraction_requests."""
    validation_requests(
        job.wildcards.prompt,
        job.wildcards.model,
        job.params.registry,
        job.params.decoding,
        job.params.upstream_root,
        job.params.labels,
        job.output[0],
    )
