"""Stage reproduction_report: every published number of both papers beside ours."""

from __future__ import annotations

from noveval.reproduction import report
from noveval.reproduction.targets import INPUTS


def run(job) -> None:
    """One job of rule reproduction_report."""
    report.write(
        {key: list(job.input[key]) for key in INPUTS},
        job.params.grid,
        job.params.conditions,
        job.output.csv,
        job.output.markdown,
        job.output.summary,
        job.params.cells,
        job.params.registry,
        job.params.upstream_root,
    )
