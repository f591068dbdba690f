"""Stage plan: jobs, calls, tokens, GPU-hours and API cost of the configured grid (no model)."""

from __future__ import annotations

from noveval.core.jobs import call_with_job
from noveval.planning.compute import compute_plan


def run(job) -> None:
    """One job of rule plan."""
    call_with_job(compute_plan, job)
