"""Stage judges_download: fetch one file of the judge study's declared release."""

from __future__ import annotations

from noveval.judges import release


def run(job) -> None:
    """One job of rule judges_download."""
    release.download(release.ReleaseFile(**job.params.file), job.output[0])
