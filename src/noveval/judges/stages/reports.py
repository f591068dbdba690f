"""The judges' tables and figures, each from the metrics and verdict tables alone.

The modules that load torch, scipy or matplotlib are imported by the steps that use them: each
job is a fresh process, importing them takes seconds, and most jobs need none of them.
"""

from __future__ import annotations

import logging

import pandas as pd

from noveval.files import read_tables
from noveval.judges import instances, tables

log = logging.getLogger(__name__)


def report_tables(metrics_path: str, markdown_path: str) -> None:
    """Grid, tie-rate and flip-rate tables from the metrics alone."""
    tables.write(pd.read_parquet(metrics_path), markdown_path)


def cost_quality(metrics_paths: list[str], png_path: str) -> None:
    """The cost–quality scatter from the metrics alone."""
    from noveval.judges import figures

    figures.cost_quality(read_tables(metrics_paths), png_path)


def motivation(metrics_path: str, model: str, changes: list[str], png_path: str) -> None:
    """The motivating figure from the pairwise metrics alone."""
    from noveval.judges import figures

    figures.motivation(pd.read_parquet(metrics_path), png_path, model, changes)


def d_minus_sources(metrics_paths: list[str], png_path: str) -> None:
    """Judge quality by D₋ source (human or generator) from the metrics alone."""
    from noveval.judges import figures

    figures.d_minus_sources(read_tables(metrics_paths), png_path)


def ideation_report(metrics_path: str, csv_path: str, markdown_path: str) -> None:
    """Share awarded to the stronger generator, its difference from the reference and flips per
    change, from the metrics alone."""
    tables.write_ideation(pd.read_parquet(metrics_path), csv_path, markdown_path)


def controlled_study(metrics_path: str, png_path: str) -> None:
    """The controlled-study figure of one format: quality per judge × change, significance
    marked, one panel per setup."""
    from noveval.judges import figures

    table = pd.read_parquet(metrics_path)
    format = table["format"].iloc[0] if len(table) else "pairwise"
    label = "macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)"
    figures.change_grid(table, png_path, "quality", f"{format}: {label}", marks=True)


def soft_accuracy(metrics_path: str, png_path: str) -> None:
    """Pairwise soft accuracy (a tie counts half) per judge × change, one panel per setup."""
    from noveval.judges import figures

    figures.change_grid(
        pd.read_parquet(metrics_path), png_path, "soft_accuracy", "soft accuracy (%)", marks=False
    )


def plan_format_figure(metrics_path: str, changes: list[str], png_path: str) -> None:
    """Pairwise strict accuracy of the cells on another form of the ideas (``changes``) beside
    the reference on the ideas as written, significance marked."""
    from noveval.judges import figures

    figures.change_grid(
        pd.read_parquet(metrics_path),
        png_path,
        "quality",
        "idea as a plan: strict accuracy (%)",
        marks=True,
        changes=changes,
    )


def plan_format(metrics_paths: list[str], csv_path: str) -> None:
    """Each change on another form of the ideas beside the same change on the ideas as written."""
    tables.write_plan_format(read_tables(metrics_paths), csv_path)


def flip_rates(
    verdicts_paths: dict[str, list[str]],
    baselines: dict[str, list[str] | None],
    csv_path: str,
    markdown_path: str,
) -> None:
    """Flip rates of the changes against their baselines (``verdicts_paths``: by format)."""
    verdicts = {format: read_tables(paths) for format, paths in verdicts_paths.items() if paths}
    tables.write_flip_rates(verdicts, baselines, csv_path, markdown_path)


def dataset_sizes(
    instances_paths: list[str], idea_formats: list[str], csv_path: str, markdown_path: str
) -> None:
    """Pairs and ideas per setup, format and idea format, from the instances judged."""
    loaded = [instances.read_instances(path) for path in instances_paths]
    tables.write_dataset_sizes(loaded, idea_formats, csv_path, markdown_path)


def expert_study(annotations_path: str, csv_path: str, markdown_path: str) -> None:
    """Counts of the release's expert re-judgements (errors, controls, whom the expert sides
    with)."""
    tables.write_expert_study(annotations_path, csv_path, markdown_path)
