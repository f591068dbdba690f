"""The NovBench construction's tables: the papers and sentences read from the NLPeer layout, the
papers left out with their reasons, and the release records assembled from the model answers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.construction import nlpeer
from noveval.construction.extraction import decisions, with_contexts
from noveval.novbench.parsing import parse_evaluation

PAPER_COLUMNS = ["paper_id", "title", "abstract", "decision"]
SENTENCE_COLUMNS = ["item_id", "paper_id", "kind", "sentence", "context"]
SKIPPED_COLUMNS = ["paper_id", "stage", "reason"]
INTRODUCTION, REVIEW = "introduction", "review"
SENTENCE_CELLS = {INTRODUCTION: "introduction_sentences", REVIEW: "review_sentences"}


def read_nlpeer(
    root: str | Path, extraction: nlpeer.Extraction
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Papers, their introduction and review sentences as ``extraction`` reads them
    (``item_id``: ``<paper>/<kind><n>``), and the papers left out with the reason."""
    papers, sentences, skipped = [], [], []
    for paper_id in nlpeer.paper_ids(root):
        try:
            paper = nlpeer.read_paper(root, paper_id, extraction)
        except nlpeer.SkippedPaper as reason:
            skipped.append({"paper_id": paper_id, "stage": "read", "reason": str(reason)})
            continue
        papers.append({column: getattr(paper, column) for column in PAPER_COLUMNS})
        for kind, texts in ((INTRODUCTION, paper.introduction), (REVIEW, paper.review_sentences)):
            for index, text in enumerate(texts):
                sentences.append(
                    {
                        "item_id": f"{paper_id}/{kind}{index}",
                        "paper_id": paper_id,
                        "kind": kind,
                        "sentence": text,
                    }
                )
    table = pd.DataFrame(sentences, columns=SENTENCE_COLUMNS[:-1])
    introduction = with_contexts(table[table["kind"] == INTRODUCTION])
    table = pd.concat([introduction, table[table["kind"] == REVIEW]], ignore_index=True)
    return (
        pd.DataFrame(papers, columns=PAPER_COLUMNS),
        table.reindex(columns=SENTENCE_COLUMNS),
        pd.DataFrame(skipped, columns=SKIPPED_COLUMNS),
    )


def novelty_sentences(sentences: pd.DataFrame, answers: pd.DataFrame) -> pd.DataFrame:
    """The sentences whose answer says yes, with ``answered`` for the count of failed calls."""
    return sentences.merge(decisions(sentences["item_id"], answers), on="item_id", how="left")


def normalisation_inputs(
    papers: pd.DataFrame, marked: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per paper its novelty descriptions and novelty review sentences (in reading order); the
    papers with none of either are left out with the reason."""
    kept, skipped = [], []
    for paper in papers.to_dict("records"):
        own = marked[(marked["paper_id"] == paper["paper_id"]) & marked["yes"]]
        descriptions = own[own["kind"] == INTRODUCTION]["sentence"].tolist()
        reviews = own[own["kind"] == REVIEW]["sentence"].tolist()
        missing = [
            name
            for name, found in (("novelty description", descriptions), ("novelty review", reviews))
            if not found
        ]
        if missing:
            reason = f"no {' and no '.join(missing)} sentence"
            skipped.append({"paper_id": paper["paper_id"], "stage": "extract", "reason": reason})
            continue
        kept.append({**paper, "paper_novelty": descriptions, "review_novelty": reviews})
    return pd.DataFrame(kept), pd.DataFrame(skipped, columns=SKIPPED_COLUMNS)


def release_records(
    papers: pd.DataFrame, normalised: pd.DataFrame, retrieved: pd.DataFrame
) -> tuple[list[dict], pd.DataFrame]:
    """The release's records (``id, title, abstract, decision, paper_novelty, review_novelty,
    output_format, retrieved_title, retrieved_abstract``); a paper whose normalisation failed or
    holds no gold item is left out with the reason."""
    by_item = dict(zip(normalised["item_id"], normalised["text"]))
    related = retrieved.set_index("paper_id")
    records, skipped = [], []
    for paper in papers.to_dict("records"):
        text = by_item.get(paper["paper_id"])
        if text is None or pd.isna(text):
            reason = "the normalisation call failed"
        elif not parse_evaluation(text).texts:
            reason = "the normalised evaluation holds no gold item"
        else:
            reason = None
        if reason:
            skipped.append({"paper_id": paper["paper_id"], "stage": "normalise", "reason": reason})
            continue
        records.append(
            {
                "id": paper["paper_id"],
                "title": paper["title"],
                "abstract": paper["abstract"],
                "decision": paper["decision"] if isinstance(paper["decision"], str) else "",
                "paper_novelty": list(paper["paper_novelty"]),
                "review_novelty": list(paper["review_novelty"]),
                "output_format": text,
                "retrieved_title": list(related.loc[paper["paper_id"], "retrieved_title"]),
                "retrieved_abstract": list(related.loc[paper["paper_id"], "retrieved_abstract"]),
            }
        )
    return records, pd.DataFrame(skipped, columns=SKIPPED_COLUMNS)


def summary_markdown(total: int, records: int, skipped: pd.DataFrame) -> str:
    """The construction summary: papers read, kept, and each left-out paper with its reason."""
    lines = [
        "# NovBench construction",
        "",
        f"{total} papers read, {records} records written, {len(skipped)} left out.",
        "",
    ]
    if len(skipped):
        counts = skipped.groupby(["stage", "reason"]).size()
        lines += ["| stage | reason | papers |", "|---|---|---|"]
        lines += [f"| {stage} | {reason} | {count} |" for (stage, reason), count in counts.items()]
        lines += ["", "| paper | stage | reason |", "|---|---|---|"]
        lines += [
            f"| {row.paper_id} | {row.stage} | {row.reason} |" for row in skipped.itertuples()
        ]
    return "\n".join(lines) + "\n"
