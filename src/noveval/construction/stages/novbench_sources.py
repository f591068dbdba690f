"""Stage construction_novbench_sources: NLPeer papers and reviews → papers, sentences, left out."""

from __future__ import annotations

import logging
from pathlib import Path

from noveval.construction import nlpeer, records
from noveval.core.files import write_table

log = logging.getLogger(__name__)


def read_sources(
    nlpeer_root: str,
    reading: dict,
    punkt_model: str | None,
    papers_path: str,
    sentences_path: str,
    skipped_path: str,
) -> None:
    """NLPeer folder → papers, their sentences (with context windows) and the papers left out.
    ``reading``: ``review_fields``, ``introduction_nodes``, ``review_sentences`` and
    ``carry_over_reviews`` of ``construction.novbench``; ``punkt_model``: the downloaded
    punkt_tab ``english`` folder (None: the package's copy)."""
    if not Path(nlpeer_root).is_dir():
        raise FileNotFoundError(
            f"construction.novbench.nlpeer: {nlpeer_root} is not a folder (the venue's papers "
            "and reviews in the NLPeer layout, one folder per paper)"
        )
    settings = nlpeer.Extraction(
        review_fields=tuple(reading["review_fields"]),
        introduction_nodes=reading["introduction_nodes"],
        review_sentences=reading["review_sentences"],
        carry_over_reviews=reading["carry_over_reviews"],
        punkt_model=punkt_model,
    )
    papers, sentences, skipped = records.read_nlpeer(nlpeer_root, settings)
    log.info(
        "%s: %d papers read, %d left out, %d sentences",
        nlpeer_root,
        len(papers),
        len(skipped),
        len(sentences),
    )
    for row in skipped.itertuples():
        log.warning("paper %s left out: %s", row.paper_id, row.reason)
    write_table(papers, papers_path)
    write_table(sentences, sentences_path)
    write_table(skipped, skipped_path)


def run(job) -> None:
    """One job of rule construction_novbench_sources."""
    read_sources(
        job.params.nlpeer,
        job.params.reading,
        job.input.punkt[0] if job.input.punkt else None,
        job.output.papers,
        job.output.sentences,
        job.output.skipped,
    )
