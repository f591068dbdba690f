"""Stage novbench_download: fetch a release file, checking its SHA-256."""

from __future__ import annotations

from noveval.novbench import releases


def download_release(url: str, sha256: str | None, dataset: str, path: str) -> None:
    """Fetch a dataset's release file (checked against its SHA-256 when the config gives one)."""
    releases.download(releases.ReleaseFile(name=dataset, path=path, url=url, sha256=sha256))


def run(job) -> None:
    """One job of rule novbench_download."""
    download_release(
        job.params.url,
        job.params.sha256,
        job.wildcards.dataset,
        job.output[0],
    )
