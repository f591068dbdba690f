"""Stage novbench_human_agreement: Fleiss' kappa, agreement and Spearman's rho (Section 4.3)."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.novbench import human_agreement

log = logging.getLogger(__name__)


def human_agreement_table(sheet_paths: list[str], scores_path: str, csv_path: str) -> None:
    """Section 4.3: Fleiss' kappa, and each metric's agreement and Spearman's rho with the
    annotators."""
    _, choices = human_agreement.read_choices(sheet_paths)
    differences = human_agreement.metric_differences(pd.read_parquet(scores_path))
    table = human_agreement.statistics(choices, differences)
    table.to_csv(csv_path, index=False)
    log.info("\n%s", table.to_string(index=False))


def run(job) -> None:
    """One job of rule novbench_human_agreement."""
    human_agreement_table(list(job.input.sheets), job.input.scores, job.output[0])
