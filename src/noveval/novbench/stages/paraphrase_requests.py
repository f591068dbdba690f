"""Stage novbench_paraphrase_requests: paraphrase calls of the 'change' perturbation."""

from __future__ import annotations

from noveval.core.registry import load_registry
from noveval.inference.requests import write_requests
from noveval.novbench import perturbation, records
from noveval.novbench.decoding import generation_config_of


def paraphrase_requests(
    papers_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    requests_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """Requests of the ``change`` perturbation: one paraphrase per description
    (``weights_manifests``: the open model's, whose generation config paper mode follows)."""
    spec = load_registry(registry_path).model(model)
    papers = records.read_papers(papers_path)
    rows = perturbation.paraphrase_requests(
        papers, spec, decoding, generation_config_of(weights_manifests)
    )
    write_requests(rows, requests_path)


def run(job) -> None:
    """One job of rule novbench_paraphrase_requests."""
    paraphrase_requests(
        job.input.papers,
        job.wildcards.model,
        job.params.registry,
        job.params.decoding,
        job.output[0],
        weights_manifests=list(job.input.weights),
    )
