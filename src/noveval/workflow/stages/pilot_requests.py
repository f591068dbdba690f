"""Stage pilot_requests: the first papers or judge instances of each of a model's pilot cells."""

from __future__ import annotations

from noveval.cluster.pilot import pilot_requests


def run(job) -> None:
    """One job of rule pilot_requests."""
    pilot_requests(list(job.input), job.params.per_cell, job.output[0])
