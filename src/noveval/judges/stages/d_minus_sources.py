"""Stage judges_d_minus_sources: judge quality by the source of the D₋ ideas."""

from __future__ import annotations

from noveval.core.files import read_tables


def d_minus_sources(metrics_paths: list[str], png_path: str) -> None:
    """Judge quality by D₋ source (human or generator) from the metrics alone."""
    from noveval.judges.statistics import figures

    figures.d_minus_sources(read_tables(metrics_paths), png_path)


def run(job) -> None:
    """One job of rule judges_d_minus_sources."""
    d_minus_sources(list(job.input.metrics), job.output[0])
