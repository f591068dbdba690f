"""Stage judges_motivation: one judge, two prompts, each setup."""

from __future__ import annotations

import pandas as pd


def motivation(metrics_path: str, model: str, changes: list[str], png_path: str) -> None:
    """The motivating figure from the pairwise metrics alone."""
    from noveval.judges.statistics import figures

    figures.motivation(pd.read_parquet(metrics_path), png_path, model, changes)


def run(job) -> None:
    """One job of rule judges_motivation."""
    motivation(job.input[0], job.params.model, job.params.changes, job.output[0])
