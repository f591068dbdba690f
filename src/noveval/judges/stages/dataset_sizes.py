"""Stage judges_dataset_sizes: pairs and ideas per setup, from the instances judged."""

from __future__ import annotations

from noveval.judges import instances
from noveval.judges.statistics import tables


def dataset_sizes(
    instances_paths: list[str], idea_formats: list[str], csv_path: str, markdown_path: str
) -> None:
    """Pairs and ideas per setup, format and idea format, from the instances judged."""
    loaded = [instances.read_instances(path) for path in instances_paths]
    tables.write_dataset_sizes(loaded, idea_formats, csv_path, markdown_path)


def run(job) -> None:
    """One job of rule judges_dataset_sizes."""
    dataset_sizes(
        job.input.instances,
        job.params.idea_formats,
        job.output.csv,
        job.output.markdown,
    )
