"""Stage novbench_annotation_download: fetch a dataset's annotation file, checking its SHA-256."""

from __future__ import annotations

from noveval.novbench.releases import ReleaseFile, download


def download_annotation(url: str, sha256: str | None, name: str, path: str) -> None:
    """Fetch a declared annotation file (checked against its SHA-256 when the config gives one)."""
    download(ReleaseFile(name=name, path=path, url=url, sha256=sha256))


def run(job) -> None:
    """One job of rule novbench_annotation_download."""
    download_annotation(
        job.params.url,
        job.params.sha256,
        f"{job.wildcards.dataset}.{job.wildcards.kind}",
        job.output[0],
    )
