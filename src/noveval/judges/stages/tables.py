"""Stage judges_tables: grid, tie-rate and flip-rate tables from the metrics."""

from __future__ import annotations

import pandas as pd

from noveval.judges.statistics import tables


def report_tables(metrics_path: str, markdown_path: str) -> None:
    """Grid, tie-rate and flip-rate tables from the metrics alone."""
    tables.write(pd.read_parquet(metrics_path), markdown_path)


def run(job) -> None:
    """One job of rule judges_tables."""
    report_tables(job.input[0], job.output[0])
