"""A venue's submissions, reviews and decisions from OpenReview (API v2, ``openreview-py``).

The notes are fetched with ``details='replies'`` for every venue id of the venue (accepted,
rejected, withdrawn) and kept as the API's JSON (``Note.to_json()`` plus ``details``), so a
recorded file and a live fetch are read alike. Reading turns each submission note into one
record; a submission without reviews or decision, or a malformed note, is skipped with its reason
and the note named.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openreview

log = logging.getLogger(__name__)

REVIEW_INVITATION = "Official_Review"
DECISION_INVITATION = "Decision"
ACCEPTED, UNACCEPTED = "Accepted", "Unaccepted"
# A venue string naming one of these is an acceptance (the authors' reading of `venue`, in any
# case: ICLR 2024 writes "ICLR 2024 poster", 2025 on "ICLR 2025 Poster").
ACCEPTING_VENUE_WORDS = ("accept", "poster", "spotlight", "oral")
LEADING_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?)")


def fetch_notes(
    venue_ids: list[str], baseurl: str, username: str | None, password: str | None
) -> list[dict]:
    """Every submission note of ``venue_ids`` with its replies, as the API's JSON."""
    client = openreview.api.OpenReviewClient(baseurl=baseurl, username=username, password=password)
    notes = []
    for venue_id in venue_ids:
        found = client.get_all_notes(content={"venueid": venue_id}, details="replies")
        log.info("%s: %d submissions", venue_id, len(found))
        notes.extend({**note.to_json(), "details": note.details} for note in found)
    return notes


def write_notes(notes: list[dict], path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(notes, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def read_notes(path: str | Path) -> list[dict]:
    """The recorded notes of a venue: a JSON list of notes as the API returns them."""
    try:
        notes = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error})") from None
    if not isinstance(notes, list):
        raise ValueError(f"{path}: expected a JSON list of OpenReview notes")
    return notes


@dataclass
class Skipped:
    """Notes left out, each with its reason."""

    records: list[dict] = field(default_factory=list)

    def add(self, note_id: str, reason: str, title: str = "") -> None:
        self.records.append({"note": note_id, "title": title, "reason": reason})


def value(content: dict, key: str, default=None):
    """A v2 content field's value (``{key: {"value": ...}}``)."""
    entry = content.get(key)
    return entry.get("value", default) if isinstance(entry, dict) else default


def score(raw) -> float | None:
    """A review score as a number: ``6`` or ``"3: good"`` → the leading number."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str) and (match := LEADING_NUMBER.match(raw)):
        return float(match.group(1))
    return None


def decision(content: dict, replies: list[dict]) -> str | None:
    """Accepted / Unaccepted from the submission's venue, else from its decision reply."""
    venue = value(content, "venue", "") or ""
    if venue:
        accepted = any(word in venue.lower() for word in ACCEPTING_VENUE_WORDS)
        return ACCEPTED if accepted else UNACCEPTED
    for reply in replies:
        if DECISION_INVITATION in reply["invitations"][0]:
            verdict = value(reply.get("content") or {}, "decision", "") or ""
            if verdict:
                return ACCEPTED if "Accept" in verdict else UNACCEPTED
    return None


def submission_record(raw: dict) -> dict | str:
    """One submission note as a record, or the reason it is skipped."""
    note = openreview.api.Note.from_json(raw)
    content = note.content
    if not isinstance(content, dict):
        return "malformed note: no content"
    if content and not any(isinstance(entry, dict) for entry in content.values()):
        return "unknown note shape: content values are not API v2 {value: ...} fields (API v1?)"
    title, abstract = value(content, "title"), value(content, "abstract")
    if not (isinstance(title, str) and title.strip()):
        return "malformed note: no title"
    if not (isinstance(abstract, str) and abstract.strip()):
        return "malformed note: no abstract"
    area = value(content, "primary_area")
    if not (isinstance(area, str) and area.strip()):
        return "malformed note: no primary area"
    replies = (note.details or {}).get("replies")
    if not isinstance(replies, list):
        return "malformed note: no replies (fetch with details='replies')"
    if any(not (isinstance(r, dict) and r.get("invitations")) for r in replies):
        return "malformed note: a reply without invitations"
    reviews = [
        review_record(reply) for reply in replies if REVIEW_INVITATION in reply["invitations"][0]
    ]
    if not reviews:
        return "no reviews"
    verdict = decision(content, replies)
    if verdict is None:
        return "no decision"
    ratings = [r["rating"] for r in reviews if r["rating"] is not None]
    if not ratings:
        return "no review has a rating"
    contributions = [r["contribution"] for r in reviews if r["contribution"] is not None]
    return {
        "id": note.id,
        "title": title.strip(),
        "abstract": abstract,
        "area": area,
        "decision": verdict,
        "rating": float(np.mean(ratings)),
        "contribution": float(np.mean(contributions)) if contributions else None,
        "reviews": reviews,
    }


def review_record(reply: dict) -> dict:
    content = reply.get("content") or {}
    return {
        "id": reply.get("id", ""),
        "rating": score(value(content, "rating")),
        "contribution": score(value(content, "contribution")),
        "strengths": value(content, "strengths", "") or "",
        "weaknesses": value(content, "weaknesses", "") or "",
    }


def submissions(notes: list[dict], skipped: Skipped) -> list[dict]:
    """The usable submissions of a venue's notes; the rest go to ``skipped`` with a reason."""
    records = []
    for index, raw in enumerate(notes):
        if not isinstance(raw, dict):
            skipped.add(f"#{index}", "malformed note: not a JSON object")
            continue
        note_id = str(raw.get("id") or f"#{index}")
        title = (
            value(raw.get("content") or {}, "title", "")
            if isinstance(raw.get("content"), dict)
            else ""
        )
        record = submission_record(raw)
        if isinstance(record, str):
            skipped.add(note_id, record, title if isinstance(title, str) else "")
        else:
            records.append(record)
    return records
