"""Stage construction_novbench_retrieval: the top-k related corpus papers of every paper."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.construction import retrieval
from noveval.core.files import write_table


def retrieve(
    papers_path: str, corpus_path: str, encoder_reference: str, top_k: int, retrieved_path: str
) -> None:
    """The top-k related corpus papers of every paper, by abstract."""
    if not Path(corpus_path).is_file():
        raise FileNotFoundError(
            f"construction.novbench.retrieval.corpus: no file at {corpus_path} (a YAML list of "
            "{title, abstract})"
        )
    from noveval.judges.retrieval import load_corpus

    papers = pd.read_parquet(papers_path)
    related = retrieval.related_papers(papers, load_corpus(corpus_path), encoder_reference, top_k)
    write_table(related, retrieved_path)


def run(job) -> None:
    """One job of rule construction_novbench_retrieval."""
    retrieve(
        job.input.papers,
        job.params.corpus,
        job.params.encoder,
        job.params.top_k,
        job.output[0],
    )
