"""Batched NovBench scoring: every unique sentence is embedded and perplexity-scored once.

The maths (:func:`score_outputs`) takes ready-made lookups text → vector / perplexity, so it runs
on hand-made embeddings; :class:`NovBenchScorer` loads the models and fills those lookups.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from noveval.inference.encoders import PerplexityScorer, SentenceEncoder
from noveval.novbench import metrics

SCORE_COLUMNS = [
    "paper_id",
    "relevance",
    "coverage",
    "kc",
    "ls",
    "fs",
    "clarity",
    "dist_acc",
    "n_items",
    "n_positive",
    "n_neutral",
    "n_negative",
    "empty",
    "repetitive",
    "unparseable",
    "failed",
]
FLAG_COLUMNS = ("empty", "repetitive", "unparseable")
METRIC_COLUMNS = ["relevance", "coverage", "kc", "ls", "fs", "clarity", "dist_acc"]


@dataclass(frozen=True)
class SentenceScores:
    """Per-sentence model outputs the metrics need."""

    relevance_vectors: Mapping[str, np.ndarray]
    coverage_vectors: Mapping[str, np.ndarray]
    perplexities: Mapping[str, float]


def papers_by_id(papers: pd.DataFrame, parsed: pd.DataFrame) -> pd.DataFrame:
    """``papers`` indexed by paper_id; ValueError if a parsed output's paper is missing."""
    indexed = papers.set_index("paper_id")
    if not indexed.index.is_unique:
        raise ValueError("papers has duplicate paper_id values")
    missing = sorted(set(parsed["paper_id"]) - set(indexed.index))
    if missing:
        raise ValueError(f"no benchmark record for paper_id(s): {', '.join(map(str, missing))}")
    return indexed


def stack(texts: list[str], vectors: Mapping[str, np.ndarray]) -> np.ndarray:
    """Rows of ``vectors`` for ``texts`` (an empty array for no texts)."""
    return np.stack([vectors[text] for text in texts]) if texts else np.empty((0, 0))


def score_output(
    paper: pd.Series,
    items_text: list[str],
    items_label: list[str],
    sentences: SentenceScores,
    coverage_threshold: float,
) -> dict[str, float | int]:
    """All metrics of one model output against its paper's descriptions and gold items."""
    descriptions, gold_texts = list(paper["descriptions"]), list(paper["gold_texts"])
    relevance = metrics.relevance(
        stack(descriptions, sentences.relevance_vectors),
        stack(items_text, sentences.relevance_vectors),
    )
    coverage = metrics.coverage(
        stack(gold_texts, sentences.coverage_vectors),
        stack(items_text, sentences.coverage_vectors),
        coverage_threshold,
    )
    kc = metrics.keyword_coverage(descriptions, items_text)
    ls = metrics.length_score(items_text)
    fs = metrics.fluency_score([sentences.perplexities[text] for text in items_text])
    return {
        "relevance": relevance,
        "coverage": coverage,
        "kc": kc,
        "ls": ls,
        "fs": fs,
        "clarity": metrics.clarity(kc, ls, fs),
        "dist_acc": metrics.dist_acc(items_label, list(paper["gold_labels"])),
        "n_items": len(items_text),
        "n_positive": items_label.count("Positive"),
        "n_neutral": items_label.count("Neutral"),
        "n_negative": items_label.count("Negative"),
    }


def score_outputs(
    papers: pd.DataFrame,
    parsed: pd.DataFrame,
    sentences: SentenceScores,
    coverage_threshold: float = 0.7,
) -> pd.DataFrame:
    """One row of :data:`SCORE_COLUMNS` per parsed output, on the parsed frame's index.

    A failed call (a value in the optional ``error`` column) is no answer: its metrics are NaN,
    so means leave it out, its flags are False (it is neither empty nor unparseable) and
    ``failed`` is True.
    """
    indexed = papers_by_id(papers, parsed)
    rows = []
    for output in parsed.itertuples(index=False):
        failed = pd.notna(getattr(output, "error", None))
        row = score_output(
            indexed.loc[output.paper_id],
            list(output.items_text),
            list(output.items_label),
            sentences,
            coverage_threshold,
        )
        if failed:
            row.update(dict.fromkeys(METRIC_COLUMNS, np.nan))
        row["paper_id"] = output.paper_id
        row.update({flag: bool(getattr(output, flag)) and not failed for flag in FLAG_COLUMNS})
        row["failed"] = failed
        rows.append(row)
    return pd.DataFrame(rows, index=parsed.index, columns=SCORE_COLUMNS)


def flatten(column: pd.Series) -> list[str]:
    """All texts of a column of lists, in order."""
    return [text for texts in column for text in texts]


def sentence_texts(
    papers: pd.DataFrame, parsed: pd.DataFrame
) -> tuple[list[str], list[str], list[str]]:
    """The descriptions and gold items of the outputs' papers (each paper once, however many
    cells answer it), and the outputs' items."""
    needed = papers_by_id(papers, parsed).loc[parsed["paper_id"].unique()]
    return (
        flatten(needed["descriptions"]),
        flatten(needed["gold_texts"]),
        flatten(parsed["items_text"]),
    )


class NovBenchScorer:
    """Loads the metric models once and scores many outputs with one pass per model."""

    def __init__(
        self,
        relevance_encoder: str,
        coverage_encoder: str,
        fluency_lm: str,
        coverage_threshold: float = 0.7,
    ):
        self.relevance_encoder = SentenceEncoder(relevance_encoder)
        self.coverage_encoder = (
            self.relevance_encoder
            if coverage_encoder == relevance_encoder
            else SentenceEncoder(coverage_encoder)
        )
        self.fluency_lm = PerplexityScorer(fluency_lm)
        self.coverage_threshold = coverage_threshold

    def sentence_scores(self, papers: pd.DataFrame, parsed: pd.DataFrame) -> SentenceScores:
        """Embed and perplexity-score every unique sentence the outputs need, once each."""
        descriptions, gold_texts, items = sentence_texts(papers, parsed)
        if self.coverage_encoder is self.relevance_encoder:
            vectors = self.relevance_encoder.encode(descriptions + gold_texts + items)
            relevance_vectors = coverage_vectors = vectors
        else:
            relevance_vectors = self.relevance_encoder.encode(descriptions + items)
            coverage_vectors = self.coverage_encoder.encode(gold_texts + items)
        return SentenceScores(
            relevance_vectors, coverage_vectors, self.fluency_lm.perplexities(items)
        )

    def score(self, papers: pd.DataFrame, parsed: pd.DataFrame) -> pd.DataFrame:
        """Score every parsed output (see :func:`score_outputs`)."""
        sentences = self.sentence_scores(papers, parsed)
        return score_outputs(papers, parsed, sentences, self.coverage_threshold)
