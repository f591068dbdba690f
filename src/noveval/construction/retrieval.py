"""The RAG papers of a NovBench record: the top-k corpus papers whose abstract is nearest to the
paper's abstract (MiniLM, L2-normalised, inner product), as the authors retrieve them.

The corpus is a YAML list of ``{title, abstract}`` (ACL, EMNLP and NAACL 2019-2022 in the paper);
entries with a repeated title are dropped, as the authors do, and a paper's own title is never
retrieved for it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

RETRIEVED_COLUMNS = ["paper_id", "retrieved_title", "retrieved_abstract"]


def unique_titles(corpus: pd.DataFrame) -> pd.DataFrame:
    """The corpus with the first entry of each title."""
    return corpus.drop_duplicates(subset="title").reset_index(drop=True)


def nearest(
    papers: pd.DataFrame, corpus: pd.DataFrame, vectors: dict[str, np.ndarray], top_k: int
) -> pd.DataFrame:
    """Per paper, the ``top_k`` corpus entries by inner product of the (normalised) abstract
    vectors, best first; ties keep the corpus order."""
    matrix = np.stack([vectors[abstract] for abstract in corpus["abstract"]])
    titles = corpus["title"].str.casefold().to_numpy()
    rows = []
    for paper in papers.to_dict("records"):
        scores = matrix @ vectors[paper["abstract"]]
        scores[titles == paper["title"].casefold()] = -np.inf
        best = [i for i in np.argsort(-scores, kind="stable")[:top_k] if np.isfinite(scores[i])]
        rows.append(
            {
                "paper_id": paper["paper_id"],
                "retrieved_title": corpus["title"].iloc[best].tolist(),
                "retrieved_abstract": corpus["abstract"].iloc[best].tolist(),
            }
        )
    return pd.DataFrame(rows, columns=RETRIEVED_COLUMNS)


def related_papers(
    papers: pd.DataFrame, corpus: pd.DataFrame, encoder_reference: str, top_k: int
) -> pd.DataFrame:
    """:func:`nearest` with the abstracts embedded by ``encoder_reference``."""
    from noveval.inference.encoders import SentenceEncoder

    corpus = unique_titles(corpus)
    encoder = SentenceEncoder(encoder_reference)
    vectors = encoder.encode(papers["abstract"].tolist() + corpus["abstract"].tolist())
    return nearest(papers, corpus, vectors, top_k)
