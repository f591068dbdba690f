"""Stage bundle: the configured targets' outputs, with what made them, into one RO-Crate."""

from __future__ import annotations

from pathlib import Path

from noveval.workflow.bundle.export import export_bundle


def run(job) -> None:
    """One job of rule bundle."""
    export_bundle(
        Path(job.output[0]),
        job.config,
        list(job.params.targets),
        job.params.journals,
        job.params.license,
    )
