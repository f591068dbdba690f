"""Stage judges_expert_study: counts of the release's expert re-judgements."""

from __future__ import annotations

from noveval.judges.statistics import tables


def expert_study(annotations_path: str, csv_path: str, markdown_path: str) -> None:
    """Counts of the release's expert re-judgements (errors, controls, whom the expert sides
    with)."""
    tables.write_expert_study(annotations_path, csv_path, markdown_path)


def run(job) -> None:
    """One job of rule judges_expert_study."""
    expert_study(job.input[0], job.output.csv, job.output.markdown)
