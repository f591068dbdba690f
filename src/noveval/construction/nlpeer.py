"""Papers and reviews in the NLPeer layout, as the NovBench construction reads them.

One folder per paper under the root: ``<paper_id>/v1/meta.json`` (``title``, ``abstract``, and
``status`` or ``decision``), ``<paper_id>/v1/reviews.json`` (a list of reviews whose ``report``
maps field names to text) and ``<paper_id>/v2/paper.itg.json`` (or ``v1/``; ``nodes``, each with
``ntype`` and ``content``). The introduction is the paragraphs from the heading "Introduction" to
the next heading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from noveval.construction.sentences import MIN_PARAGRAPH_CHARS, split_sentences


@dataclass
class Paper:
    """One paper's fields for the benchmark record."""

    paper_id: str
    title: str
    abstract: str
    decision: str | None
    introduction: list[str] = field(default_factory=list)
    review_sentences: list[str] = field(default_factory=list)


class SkippedPaper(ValueError):
    """A paper the construction leaves out, with the reason."""


def paper_ids(root: str | Path) -> list[str]:
    """The paper folders under ``root``, sorted."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no NLPeer folder")
    return sorted(entry.name for entry in root.iterdir() if entry.is_dir())


def read_paper(root: str | Path, paper_id: str, review_fields: list[str]) -> Paper:
    """The paper ``paper_id`` with its introduction sentences and the sentences of the
    ``review_fields`` of each review; raises SkippedPaper naming what is missing or malformed."""
    folder = Path(root) / paper_id
    meta = _json(folder / "v1" / "meta.json")
    reviews = _json(folder / "v1" / "reviews.json")
    itg = folder / "v2" / "paper.itg.json"
    nodes = _json(itg if itg.is_file() else folder / "v1" / "paper.itg.json").get("nodes")
    for key in ("title", "abstract"):
        if not isinstance(meta.get(key), str) or not meta[key].strip():
            raise SkippedPaper(f"meta.json has no {key}")
    if not isinstance(nodes, list):
        raise SkippedPaper("paper.itg.json has no list of nodes")
    if not isinstance(reviews, list):
        raise SkippedPaper("reviews.json is not a list of reviews")
    return Paper(
        paper_id=paper_id,
        title=meta["title"],
        abstract=meta["abstract"],
        decision=meta.get("status", meta.get("decision")),
        introduction=introduction_sentences(nodes),
        review_sentences=review_sentences(reviews, review_fields),
    )


def introduction_sentences(nodes: list[dict]) -> list[str]:
    """The sentences of the paragraphs between the heading "Introduction" and the next heading
    (the authors leave out a paper whose introduction is not followed by a heading)."""
    start = end = None
    for index, node in enumerate(nodes):
        heading = node.get("ntype") == "heading"
        if heading and start is None and str(node.get("content", "")).lower() == "introduction":
            start = index
        elif heading and start is not None:
            end = index
            break
    if start is None:
        raise SkippedPaper("no Introduction heading")
    if end is None:
        raise SkippedPaper("no heading after the Introduction")
    sentences = []
    for node in nodes[start + 1 : end]:
        content = str(node.get("content", ""))
        if node.get("ntype") == "paragraph" and len(content) >= MIN_PARAGRAPH_CHARS:
            sentences.extend(split_sentences(content))
    if not sentences:
        raise SkippedPaper("the Introduction has no sentence")
    return sentences


def review_sentences(reviews: list[dict], fields: list[str]) -> list[str]:
    """The sentences of ``fields`` of each review's report, review by review (each review's
    own sentences only)."""
    sentences = []
    for number, review in enumerate(reviews):
        report = review.get("report") if isinstance(review, dict) else None
        if not isinstance(report, dict):
            raise SkippedPaper(f"review {number} has no report")
        missing = [name for name in fields if name not in report]
        if missing:
            raise SkippedPaper(f"review {number} has no field {', '.join(missing)}")
        for name in fields:
            sentences.extend(split_sentences(report[name] or ""))
    if not sentences:
        raise SkippedPaper("no review sentence")
    return sentences


def _json(path: Path):
    if not path.is_file():
        raise SkippedPaper(f"no {path.parent.name}/{path.name}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SkippedPaper(f"{path.parent.name}/{path.name} is not JSON: {error}") from error
