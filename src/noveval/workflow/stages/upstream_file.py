"""Stage upstream_file: fetch one upstream file (the authors' repository at its pinned commit),
checking its SHA-256."""

from __future__ import annotations

from noveval.core import upstream


def run(job) -> None:
    """One job of rule upstream_file."""
    upstream.fetch(
        upstream.pin(job.wildcards.study, job.wildcards.path),
        job.output[0],
        job.params.mirror,
    )
