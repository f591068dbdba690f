"""Stage construction_judges_notes: the venue's OpenReview notes, recorded or fetched."""

from __future__ import annotations

import logging
import os

from noveval.construction import openreview_notes

log = logging.getLogger(__name__)


def venue_notes(recorded: str | None, venue_ids: list[str], baseurl: str, notes_path: str) -> None:
    """A venue's notes: the recorded file (checked to be a JSON list of notes), or fetched from
    OpenReview (credentials: OPENREVIEW_USERNAME / OPENREVIEW_PASSWORD)."""
    if recorded:
        notes = openreview_notes.read_notes(recorded)
    else:
        notes = openreview_notes.fetch_notes(
            venue_ids,
            baseurl,
            os.environ.get("OPENREVIEW_USERNAME"),
            os.environ.get("OPENREVIEW_PASSWORD"),
        )
    openreview_notes.write_notes(notes, notes_path)
    log.info("%s: %d notes", notes_path, len(notes))


def run(job) -> None:
    """One job of rule construction_judges_notes."""
    venue_notes(
        recorded=job.input[0] if job.input else None,
        venue_ids=job.params.venue_ids,
        baseurl=job.params.baseurl,
        notes_path=job.output[0],
    )
