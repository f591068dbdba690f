"""Stage novbench_parse: model outputs → labelled items and failure flags."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.files import write_table
from noveval.inference.batches import read_responses
from noveval.novbench.parsing import parse_evaluation
from noveval.novbench.records import CELL_COLUMNS

log = logging.getLogger(__name__)


PARSED_COLUMNS = [
    *CELL_COLUMNS,
    "paper_id",
    "request_id",
    "items_text",
    "items_label",
    "empty",
    "repetitive",
    "unparseable",
    "error",
]


def parse_responses(
    responses_path: str,
    cell: dict,
    parsed_path: str,
    think_opened: bool = False,
    keep_duplicates: bool = False,
) -> None:
    """Model outputs of one cell (from its batch's responses) → items with labels and
    instruction-following flags (``think_opened``: the registry's ``think_opened_by_template``
    of the cell's model; ``keep_duplicates``: repeated items count, as in the authors' scoring)."""
    responses = read_responses(responses_path, f"{cell['strategy']}-{cell['perturbation']}")
    rows = []
    for response in responses.to_dict("records"):
        parsed = parse_evaluation(response["text"], think_opened, keep_duplicates)
        rows.append(
            {
                **cell,
                "paper_id": response["item_id"],
                "request_id": response["request_id"],
                "items_text": [text for _, text in parsed.items],
                "items_label": [label for label, _ in parsed.items],
                "empty": parsed.empty,
                "repetitive": parsed.repetitive,
                "unparseable": parsed.unparseable,
                "error": response["error"],
            }
        )
    frame = pd.DataFrame(rows, columns=PARSED_COLUMNS)
    log.info(
        "%d outputs: %d empty, %d repetitive, %d unparseable, %d failed calls",
        len(frame),
        frame["empty"].sum(),
        frame["repetitive"].sum(),
        frame["unparseable"].sum(),
        frame["error"].notna().sum(),
    )
    write_table(frame, parsed_path)


def run(job) -> None:
    """One job of rule novbench_parse."""
    wildcards = job.wildcards
    parse_responses(
        job.input[0],
        {
            "model": wildcards.model,
            "strategy": wildcards.strategy,
            "perturbation": wildcards.perturbation,
        },
        job.output[0],
        job.params.think_opened,
        job.params.keep_duplicates,
    )
