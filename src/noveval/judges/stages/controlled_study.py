"""Stage judges_controlled_study: quality per judge × change of one format, from the metrics."""

from __future__ import annotations

import pandas as pd


def controlled_study(metrics_path: str, png_path: str) -> None:
    """The controlled-study figure of one format: quality per judge × change, significance
    marked, one panel per setup."""
    from noveval.judges.statistics import figures

    table = pd.read_parquet(metrics_path)
    format = table["format"].iloc[0] if len(table) else "pairwise"
    label = "macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)"
    figures.change_grid(table, png_path, "quality", f"{format}: {label}", marks=True)


def run(job) -> None:
    """One job of rule judges_controlled_study."""
    controlled_study(job.input[0], job.output[0])
