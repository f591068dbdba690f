"""Stage pilot: the measured file (throughput, answer lengths, server starts) of the pilot jobs."""

from __future__ import annotations

from noveval.cluster.pilot import measure_pilot


def run(job) -> None:
    """One job of rule pilot."""
    measure_pilot(
        jobs=job.params.jobs,
        registry_path=job.params.registry,
        chars_per_token=job.params.chars_per_token,
        output_path=job.output[0],
    )
