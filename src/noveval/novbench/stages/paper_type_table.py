"""Stage novbench_paper_type_table: Tables 6 and 7, the scores per paper type."""

from __future__ import annotations

import logging
from pathlib import Path

from noveval.core.assets import file_digest
from noveval.core.files import read_tables
from noveval.novbench import paper_type
from noveval.novbench.paper_tables import ANNOTATIONS_DIGEST

log = logging.getLogger(__name__)


def paper_type_table(scores_paths: list[str], labels_path: str, csv_path: str) -> None:
    """Tables 6 and 7: the dataset's scores summarised per paper type, with the labels file's
    SHA-256 (``annotations_sha256``)."""
    table = paper_type.split_table(read_tables(scores_paths), paper_type.read_labels(labels_path))
    table[ANNOTATIONS_DIGEST] = file_digest(Path(labels_path))
    table.to_csv(csv_path, index=False)
    log.info("%s", table.groupby("paper_type")["n_papers"].max().to_dict())


def run(job) -> None:
    """One job of rule novbench_paper_type_table."""
    paper_type_table(list(job.input.scores), job.input.labels, job.output[0])
