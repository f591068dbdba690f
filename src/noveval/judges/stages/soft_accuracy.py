"""Stage judges_soft_accuracy: pairwise soft accuracy per judge × change, from the metrics."""

from __future__ import annotations

import pandas as pd


def soft_accuracy(metrics_path: str, png_path: str) -> None:
    """Pairwise soft accuracy (a tie counts half) per judge × change, one panel per setup."""
    from noveval.judges.statistics import figures

    figures.change_grid(
        pd.read_parquet(metrics_path), png_path, "soft_accuracy", "soft accuracy (%)", marks=False
    )


def run(job) -> None:
    """One job of rule judges_soft_accuracy."""
    soft_accuracy(job.input[0], job.output[0])
