"""Papers and reviews in the NLPeer layout, as the NovBench construction reads them.

One folder per paper under the root: ``<paper_id>/v1/meta.json`` (``title``, ``abstract``, and
``status`` or ``decision``), ``<paper_id>/v1/reviews.json`` (a list of reviews whose ``report``
maps field names to text) and ``<paper_id>/v2/paper.itg.json`` (or ``v1/``; ``nodes``, each with
``ntype`` and ``content``). The introduction is the nodes from the heading "Introduction" to the
next heading. What is read of them follows the venue's construction script (``Extraction``): the
authors' COLING-2020 script keeps every node of the introduction (list items and formulas too) and
takes NLPeer's own sentence spans of each review verbatim; their EMNLP-2023 script keeps the
paragraphs only and splits three report fields, its list of fields never reset between reviews.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from noveval.construction.sentences import MIN_PARAGRAPH_CHARS, split_sentences

ALL_NODES, PARAGRAPHS = "all", "paragraphs"  # introduction_nodes
SPLIT, SPANS = "split", "spans"  # review_sentences


@dataclass(frozen=True)
class Extraction:
    """How sentences are read (``construction.novbench``): the review fields; the introduction
    nodes kept (``paragraphs`` or ``all`` non-heading nodes); review sentences split from the
    fields' text (``split``: Punkt, at least 10 characters) or NLPeer's spans of each field
    (``spans``: ``meta.sentences.<field>``, verbatim, no length filter); ``carry_over_reviews``:
    each review re-reads the fields of the reviews before it (the authors' EMNLP-2023 loop);
    ``punkt_model``: a punkt_tab ``english`` folder (None: the package's copy)."""

    review_fields: tuple[str, ...]
    introduction_nodes: str = PARAGRAPHS
    review_sentences: str = SPLIT
    carry_over_reviews: bool = False
    punkt_model: str | None = None


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


def read_paper(root: str | Path, paper_id: str, extraction: Extraction) -> Paper:
    """The paper ``paper_id`` with its introduction and review sentences as ``extraction``
    reads them; raises SkippedPaper naming what is missing or malformed."""
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
        introduction=introduction_sentences(nodes, extraction),
        review_sentences=review_sentences(reviews, extraction),
    )


def introduction_sentences(nodes: list[dict], extraction: Extraction) -> list[str]:
    """The sentences of the nodes between the heading "Introduction" and the next heading (the
    authors leave out a paper whose introduction is not followed by a heading): of every node of
    at least 5 characters, or of its paragraphs only, as ``extraction.introduction_nodes`` says."""
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
        kept = extraction.introduction_nodes == ALL_NODES or node.get("ntype") == "paragraph"
        if kept and len(content) >= MIN_PARAGRAPH_CHARS:
            sentences.extend(split_sentences(content, extraction.punkt_model))
    if not sentences:
        raise SkippedPaper("the Introduction has no sentence")
    return sentences


def review_sentences(reviews: list[dict], extraction: Extraction) -> list[str]:
    """The sentences of the review fields of each review's report, review by review (with
    ``carry_over_reviews``, each review preceded again by the fields of the earlier ones)."""
    sentences, read = [], []
    for number, review in enumerate(reviews):
        report = review.get("report") if isinstance(review, dict) else None
        if not isinstance(report, dict):
            raise SkippedPaper(f"review {number} has no report")
        missing = [name for name in extraction.review_fields if name not in report]
        if missing:
            raise SkippedPaper(f"review {number} has no field {', '.join(missing)}")
        own = [
            _field_sentences(review, number, name, extraction) for name in extraction.review_fields
        ]
        read = [*read, *own] if extraction.carry_over_reviews else own
        for field_sentences in read:
            sentences.extend(field_sentences)
    if not sentences:
        raise SkippedPaper("no review sentence")
    return sentences


def _field_sentences(review: dict, number: int, name: str, extraction: Extraction) -> list[str]:
    """One field's sentences: split from its text, or cut from it by NLPeer's spans."""
    text = review["report"][name] or ""
    if extraction.review_sentences == SPLIT:
        return split_sentences(text, extraction.punkt_model)
    spans = ((review.get("meta") or {}).get("sentences") or {}).get(name)
    if not isinstance(spans, list) or not all(
        isinstance(span, list) and len(span) == 2 for span in spans
    ):
        raise SkippedPaper(f"review {number} has no sentence spans meta.sentences.{name}")
    return [text[begin:end] for begin, end in spans]


def _json(path: Path):
    if not path.is_file():
        raise SkippedPaper(f"no {path.parent.name}/{path.name}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SkippedPaper(f"{path.parent.name}/{path.name} is not JSON: {error}") from error
