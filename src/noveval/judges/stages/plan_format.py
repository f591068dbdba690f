"""Stage judges_plan_format: each change on ideas as plans beside it on the ideas as written."""

from __future__ import annotations

from noveval.core.files import read_tables
from noveval.judges.statistics import tables


def plan_format(metrics_paths: list[str], csv_path: str) -> None:
    """Each change on another form of the ideas beside the same change on the ideas as written."""
    tables.write_plan_format(read_tables(metrics_paths), csv_path)


def run(job) -> None:
    """One job of rule judges_plan_format."""
    plan_format(job.input.metrics, job.output[0])
