"""Stage weights: download one open model's weights into the shared cache, write its manifest."""

from __future__ import annotations

from noveval.core.jobs import call_with_job
from noveval.inference.weights import download


def run(job) -> None:
    """One job of rule weights."""
    call_with_job(download, job)
