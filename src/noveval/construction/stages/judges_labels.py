"""Stage construction_judges_labels: D₊ and D₋ by the labelling rules."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.construction import judge_calls, openreview_notes, selection
from noveval.core.files import read_json, write_json
from noveval.core.jobs import call_with_job

log = logging.getLogger(__name__)


def labels(
    candidates_path: str,
    responses_path: str,
    rules: dict,
    labelled_path: str,
    skipped_path: str,
) -> None:
    """D₊ and D₋ by the labelling rules; the candidates that fail a rule, with the rule."""
    found, garbled = judge_calls.with_signals(
        read_json(candidates_path), pd.read_parquet(responses_path)
    )
    skipped = openreview_notes.Skipped()
    kept = selection.labelled(found, selection.Rules.of(rules), skipped)
    log.info(
        "%d labelled, %d left out, %d unusable signal answers",
        len(kept),
        len(skipped.records),
        garbled,
    )
    write_json(kept, labelled_path)
    write_json({"unusable_signal_answers": garbled, "skipped": skipped.records}, skipped_path)


def run(job) -> None:
    """One job of rule construction_judges_labels."""
    call_with_job(labels, job)
