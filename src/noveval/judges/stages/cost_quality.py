"""Stage judges_cost_quality: the cost–quality scatter from the metrics."""

from __future__ import annotations

from noveval.core.files import read_tables


def cost_quality(metrics_paths: list[str], png_path: str) -> None:
    """The cost–quality scatter from the metrics alone."""
    from noveval.judges.statistics import figures

    figures.cost_quality(read_tables(metrics_paths), png_path)


def run(job) -> None:
    """One job of rule judges_cost_quality."""
    cost_quality(list(job.input.metrics), job.output[0])
