"""Stage judges_plan_format_figure: the changes on ideas as plans, from the pairwise metrics."""

from __future__ import annotations

import pandas as pd


def plan_format_figure(metrics_path: str, changes: list[str], png_path: str) -> None:
    """Pairwise strict accuracy of the cells on another form of the ideas (``changes``) beside
    the reference on the ideas as written, significance marked."""
    from noveval.judges.statistics import figures

    figures.change_grid(
        pd.read_parquet(metrics_path),
        png_path,
        "quality",
        "idea as a plan: strict accuracy (%)",
        marks=True,
        changes=changes,
    )


def run(job) -> None:
    """One job of rule judges_plan_format_figure."""
    plan_format_figure(job.input[0], job.params.changes, job.output[0])
