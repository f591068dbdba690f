"""Stage judges_explorer: a dataset's instance explorer (``noveval.judges.explorer``)."""

from __future__ import annotations

import pandas as pd

from noveval.core.explorer import write_explorer
from noveval.core.files import read_tables
from noveval.judges import explorer
from noveval.judges.instances import read_instances


def explorer_folder(
    dataset: str,
    instances_paths: list[str],
    verdicts_paths: list[str],
    responses_paths: list[str],
    metrics_paths: list[str],
    flip_rates_path: str,
    folder: str,
) -> None:
    """Write the explorer of ``dataset`` into ``folder`` from its verdicts and tables."""
    built = explorer.build(
        dataset,
        pd.concat([read_instances(path) for path in instances_paths], ignore_index=True),
        explorer.read_verdicts(verdicts_paths),
        explorer.call_answers(responses_paths),
        read_tables(metrics_paths),
        pd.read_csv(flip_rates_path),
    )
    write_explorer(built, folder)


def run(job) -> None:
    """One job of rule judges_explorer."""
    explorer_folder(
        job.wildcards.dataset,
        list(job.input.instances),
        list(job.input.verdicts),
        list(job.input.responses),
        list(job.input.metrics),
        job.input.flip_rates,
        job.output[0],
    )
