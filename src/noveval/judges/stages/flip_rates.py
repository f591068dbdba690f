"""Stage judges_flip_rates: every change's flip rate against its baselines, from the verdicts."""

from __future__ import annotations

from noveval.core.files import read_tables
from noveval.judges.statistics import tables


def flip_rates(
    verdicts_paths: dict[str, list[str]],
    baselines: dict[str, list[str] | None],
    csv_path: str,
    markdown_path: str,
) -> None:
    """Flip rates of the changes against their baselines (``verdicts_paths``: by format)."""
    verdicts = {format: read_tables(paths) for format, paths in verdicts_paths.items() if paths}
    tables.write_flip_rates(verdicts, baselines, csv_path, markdown_path)


def run(job) -> None:
    """One job of rule judges_flip_rates."""
    flip_rates(
        {"pairwise": list(job.input.pairwise), "pointwise": list(job.input.pointwise)},
        job.params.baselines,
        job.output.csv,
        job.output.markdown,
    )
