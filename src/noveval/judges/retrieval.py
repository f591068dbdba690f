"""Related work for the retrieval change: the top-k corpus abstracts per idea by MiniLM similarity.

The corpus is a YAML list of ``{title, abstract}``; an idea's own paper (same title) is never
retrieved for it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from noveval.core.yaml_files import load_yaml
from noveval.inference.encoders import SentenceEncoder


def load_corpus(path: str | Path) -> pd.DataFrame:
    """The corpus as a table of title, abstract."""
    entries = load_yaml(Path(path).read_text(encoding="utf-8")) or []
    if not all(isinstance(e, dict) and e.get("title") and e.get("abstract") for e in entries):
        raise ValueError(f"{path}: expected a list of {{title, abstract}} entries")
    return pd.DataFrame(entries)[["title", "abstract"]]


def top_related(
    ideas: list[str], titles: list[str], corpus: pd.DataFrame, vectors: dict, top_k: int
) -> list[list[str]]:
    """Per idea, the ``top_k`` most similar corpus entries as 'Title: abstract'."""
    entries = corpus["abstract"].tolist()
    matrix = np.stack([vectors[a] for a in entries])
    corpus_titles = corpus["title"].str.casefold().to_numpy()
    related = []
    for idea, title in zip(ideas, titles):
        scores = matrix @ vectors[idea]
        scores[corpus_titles == title.casefold()] = -np.inf
        best = [i for i in np.argsort(-scores, kind="stable")[:top_k] if np.isfinite(scores[i])]
        related.append([f"{corpus['title'].iloc[i]}: {entries[i]}" for i in best])
    return related


def related_work(
    instances: pd.DataFrame, corpus: pd.DataFrame, encoder_reference: str, top_k: int
) -> pd.DataFrame:
    """``instance_id, related`` (one list of abstracts per idea) for every instance."""
    ideas = [idea for shown in instances["ideas"] for idea in shown]
    titles = [title for shown in instances["titles"] for title in shown]
    vectors = SentenceEncoder(encoder_reference).encode(ideas + corpus["abstract"].tolist())
    per_idea = iter(top_related(ideas, titles, corpus, vectors, top_k))  # one corpus matrix
    return pd.DataFrame(
        {
            "instance_id": instances["instance_id"],
            "related": [[next(per_idea) for _ in shown] for shown in instances["ideas"]],
        }
    )
