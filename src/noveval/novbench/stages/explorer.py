"""Stage novbench_explorer: a dataset's instance explorer (``noveval.novbench.explorer``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.core.explorer import write_explorer
from noveval.core.files import read_tables
from noveval.novbench import explorer


def explorer_folder(
    dataset: str,
    papers_path: str,
    inputs_paths: list[str],
    scores_paths: list[str],
    parsed_paths: list[str],
    responses_paths: list[str],
    table_path: str,
    folder: str,
) -> None:
    """Write the explorer of ``dataset`` into ``folder`` from its outputs (the inputs tables are
    named ``<perturbation>.parquet``)."""
    inputs = {Path(path).stem: pd.read_parquet(path) for path in inputs_paths}
    built = explorer.build(
        dataset,
        pd.read_parquet(papers_path),
        inputs,
        read_tables(scores_paths),
        explorer.read_answers(parsed_paths, responses_paths),
        pd.read_csv(table_path),
    )
    write_explorer(built, folder)


def run(job) -> None:
    """One job of rule novbench_explorer."""
    explorer_folder(
        job.wildcards.dataset,
        job.input.papers,
        list(job.input.inputs),
        list(job.input.scores),
        list(job.input.parsed),
        list(job.input.responses),
        job.input.table,
        job.output[0],
    )
