"""Stage judges_ideation: the ideation-system comparison from the pairwise metrics."""

from __future__ import annotations

import pandas as pd

from noveval.judges.statistics import tables


def ideation_report(metrics_path: str, csv_path: str, markdown_path: str) -> None:
    """Share awarded to the stronger generator, its difference from the reference and flips per
    change, from the metrics alone."""
    tables.write_ideation(pd.read_parquet(metrics_path), csv_path, markdown_path)


def run(job) -> None:
    """One job of rule judges_ideation."""
    ideation_report(job.input[0], job.output.csv, job.output.markdown)
