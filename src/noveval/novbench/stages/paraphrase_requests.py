"""Stage novbench_paraphrase_requests: paraphrase calls of the 'change' perturbation."""

from __future__ import annotations

from noveval.inference.requests import RequestsTarget, write_requests
from noveval.novbench import perturbation, records
from noveval.novbench.decoding import generation_config_of


def paraphrase_requests(
    target: RequestsTarget,
    papers_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """Requests of the ``change`` perturbation: one paraphrase per description
    (``weights_manifests``: the open model's, whose generation config paper mode follows)."""
    spec = target.spec()
    papers = records.read_papers(papers_path)
    rows = perturbation.paraphrase_requests(
        papers, spec, target.decoding, generation_config_of(weights_manifests)
    )
    write_requests(rows, target.requests_path)


def run(job) -> None:
    """One job of rule novbench_paraphrase_requests."""
    paraphrase_requests(
        RequestsTarget.of_job(job),
        job.input.papers,
        weights_manifests=list(job.input.weights),
    )
