"""Stage construction_judges_candidates: the top and bottom candidates of every primary area."""

from __future__ import annotations

import logging

from noveval.construction import openreview_notes, selection
from noveval.core.files import write_json
from noveval.core.jobs import call_with_job
from noveval.judges.authors import blocked_titles

log = logging.getLogger(__name__)


def candidates(
    notes_path: str,
    upstream_root: str | None,
    rules: dict,
    candidates_path: str,
    skipped_path: str,
) -> None:
    """The top and bottom candidates of every area; the notes left out, with their reasons."""
    skipped = openreview_notes.Skipped()
    records = openreview_notes.submissions(openreview_notes.read_notes(notes_path), skipped)
    blocked = blocked_titles(upstream_root) if upstream_root else set()
    chosen = selection.candidates(records, selection.Rules.of(rules), blocked, skipped)
    log.info(
        "%s: %d submissions, %d candidates, %d left out",
        notes_path,
        len(records),
        len(chosen),
        len(skipped.records),
    )
    write_json(chosen, candidates_path)
    write_json(skipped.records, skipped_path)


def run(job) -> None:
    """One job of rule construction_judges_candidates."""
    call_with_job(candidates, job)
