"""The leakage filter as the judge study applies it to every search for an instance.

Two rules:
- **the cutoff**: nothing published after the venue's deadline. The search asks the API for it
  (``publicationDateOrYear``: a date ``YYYY-MM-DD`` or ``YYYY-MM`` becomes ``:date``, on or before
  it; a bare year ``-YYYY``, up to and including that year). Where an answer cannot be filtered
  by the API, :func:`published_by` applies the same cutoff to the paper's ``publicationDate``,
  else its ``year``; a paper with neither is kept.
- **not the idea's own paper**: a retrieved paper is dropped when its title matches one of the
  instance's titles (the paper's title and any aliases). Titles are compared normalised (case,
  curly quotes and dashes, every run of other characters a space): equal, or, when both are at
  least 30 characters long, one containing the other (a subtitle added or cut).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LONG_TITLE_CHARS = 30
_TYPOGRAPHY = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})


def normalize_title(title: str | None) -> str:
    """Lower case, typographic quotes and dashes made plain, other characters as single spaces."""
    if not title:
        return ""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower().translate(_TYPOGRAPHY)).split())


def same_paper(retrieved: str | None, own: str | None) -> bool:
    """Whether a retrieved title names the idea's own paper (see the module's rule)."""
    a, b = normalize_title(retrieved), normalize_title(own)
    if not a or not b:
        return False
    if a == b:
        return True
    return min(len(a), len(b)) >= LONG_TITLE_CHARS and (a in b or b in a)


def is_own_paper(retrieved: str | None, own_titles: Iterable[str]) -> bool:
    """Whether a retrieved title matches any of the instance's titles."""
    return any(same_paper(retrieved, own) for own in own_titles)


def own_titles(metadata: dict) -> list[str]:
    """The titles an instance's searches must not return: ``title``, ``paper_title``, ``name``
    and any ``exclude_titles`` (or ``aliases``), once each (case-insensitively)."""
    titles = [metadata[key] for key in ("title", "paper_title", "name") if metadata.get(key)]
    titles += metadata.get("exclude_titles") or metadata.get("aliases") or []
    unique = {}
    for title in map(str, titles):
        unique.setdefault(title.strip().lower(), title)
    unique.pop("", None)
    return list(unique.values())


def cutoff_filter(cutoff: str | None) -> str | None:
    """The API's ``publicationDateOrYear`` value for a cutoff: ``:YYYY-MM-DD`` or ``:YYYY-MM``
    for a date, ``-YYYY`` for a year; a value already in the API's range syntax unchanged."""
    if not cutoff or not str(cutoff).strip():
        return None
    cutoff = str(cutoff).strip()
    if ":" in cutoff or cutoff.startswith("-") or cutoff.endswith("-"):
        return cutoff
    return f":{cutoff}" if "-" in cutoff else f"-{cutoff}"


def _date_parts(text: str, missing: tuple[int, int]) -> tuple[int, int, int]:
    parts = [int(part) for part in text.split("-")]
    return (parts[0], *parts[1:], *missing[len(parts) - 1 :])


def published_by(paper: dict, cutoff: str) -> bool:
    """Whether a paper appeared on or before the cutoff (``YYYY[-MM[-DD]]``): by its
    ``publicationDate`` when it has one, else by its ``year``; kept when it has neither or either
    is unreadable."""
    limit = _date_parts(cutoff.strip(":- "), (12, 31))
    published = (paper.get("publicationDate") or "").strip()
    try:
        if published:
            return _date_parts(published, (1, 1)) <= limit
        if paper.get("year") is not None:
            return int(paper["year"]) <= limit[0]
    except (ValueError, TypeError):
        return True
    return True


def without_leakage(
    papers: list[dict], titles: Iterable[str], cutoff: str | None = None
) -> tuple[list[dict], int]:
    """The papers that are neither the idea's own (by title) nor, with a cutoff, published after
    it; and how many were dropped."""
    titles = list(titles)
    kept = [
        paper
        for paper in papers
        if not is_own_paper(paper.get("title"), titles)
        and (cutoff is None or published_by(paper, cutoff))
    ]
    return kept, len(papers) - len(kept)
