"""Stage novbench_papers: release JSON → papers table."""

from __future__ import annotations

import logging

from noveval.novbench import perturbation, records

log = logging.getLogger(__name__)


def load_papers(
    release_path: str, papers_path: str, perturbation_paths: dict[str, str] | None = None
) -> None:
    """Release-format JSON → validated papers table; with the authors' perturbation releases,
    only the papers they hold."""
    papers = records.load_release(release_path)
    if perturbation_paths:
        releases = {
            kind: records.load_perturbation_release(path)
            for kind, path in perturbation_paths.items()
        }
        papers = perturbation.released_papers(papers, releases)
    log.info("%s: %d papers", release_path, len(papers))
    records.write_papers(papers, papers_path)


def run(job) -> None:
    """One job of rule novbench_papers."""
    load_papers(job.input.release, job.output[0], dict(job.params.perturbations))
