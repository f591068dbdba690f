"""Stage weights: download one open model's weights into the shared cache, write its manifest."""

from __future__ import annotations

from noveval.inference.weights import download


def run(job) -> None:
    """One job of rule weights."""
    download(
        model=job.wildcards.model,
        repo_id=job.params.reference,
        revision=job.params.revision,
        cache=job.params.cache,
        manifest=job.output[0],
        allow_unpinned=job.params.allow_unpinned,
        lock=job.params.lock,
    )
