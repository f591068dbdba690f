"""Stage novbench_paper_type_labels: the classifier's answers in the authors' file format."""

from __future__ import annotations

import json

from noveval.core.files import write_bytes
from noveval.inference.batches import PAPER_TYPE as PAPER_TYPE_BATCH
from noveval.inference.batches import read_responses
from noveval.novbench import paper_type


def classification_labels(responses_path: str, labels_path: str) -> None:
    """The classifier's answers in the authors' file format (``id``, ``classification``)."""
    labels = paper_type.labels_from_responses(read_responses(responses_path, PAPER_TYPE_BATCH))
    write_bytes(json.dumps(labels, ensure_ascii=False, indent=1).encode("utf-8"), labels_path)


def run(job) -> None:
    """One job of rule novbench_paper_type_labels."""
    classification_labels(job.input[0], job.output[0])
