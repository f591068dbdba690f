"""Stage novbench_score: per-paper scores of a model's cells (the gold row for model human)."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.files import read_tables, write_table
from noveval.core.registry import load_registry
from noveval.inference.encoders import use_threads
from noveval.inference.weights import use_offline
from noveval.novbench import records
from noveval.novbench.records import CELL_COLUMNS

log = logging.getLogger(__name__)


HUMAN_CELL = {"model": "human", "strategy": "-", "perturbation": "-"}


def gold_as_parsed(papers: pd.DataFrame) -> pd.DataFrame:
    """The reviewers' gold items in the parsed layout, to score the human row."""
    return pd.DataFrame(
        {
            **HUMAN_CELL,
            "paper_id": papers["paper_id"],
            "request_id": None,
            "items_text": papers["gold_texts"],
            "items_label": papers["gold_labels"],
            "empty": False,
            "repetitive": False,
            "unparseable": False,
            "error": None,
        }
    )


def score(
    papers_path: str,
    parsed_paths: list[str],
    scoring: dict,
    registry_path: str,
    scores_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """Per-paper scores of a model's cells, or of the human row when ``parsed_paths`` is empty.

    The metric models load once, and each unique sentence is embedded and scored once. The hub
    scorers load from the snapshots of ``weights_manifests`` (rule weights), with the hub off.
    """
    from noveval.novbench.scoring import NovBenchScorer

    located = use_offline(weights_manifests)
    registry = load_registry(registry_path)
    papers = records.read_papers(papers_path)
    if parsed_paths:
        parsed = read_tables(parsed_paths)
    else:
        parsed = gold_as_parsed(papers)
    references = {
        "relevance_encoder": registry.encoder(scoring["relevance_encoder"]),
        "coverage_encoder": registry.encoder(scoring["coverage_encoder"]),
        "fluency_lm": registry.language_model(scoring["fluency_lm"]),
    }
    loaded = {key: located.get(reference, reference) for key, reference in references.items()}
    log.info("scorers: %s", loaded)
    scorer = NovBenchScorer(**loaded, coverage_threshold=scoring["coverage_threshold"])
    scores = scorer.score(papers, parsed)
    scores[CELL_COLUMNS] = parsed[CELL_COLUMNS]
    for key in ("relevance_encoder", "coverage_encoder", "fluency_lm"):
        scores[key] = scoring[key]
    log.info("scored %d outputs of %d cells", len(scores), len(parsed_paths) or 1)
    write_table(scores, scores_path)


def run(job) -> None:
    """One job of rule novbench_score."""
    use_threads(job.threads)
    score(
        papers_path=job.input.papers,
        parsed_paths=list(job.input.get("parsed", [])),
        scoring=job.params.scoring,
        registry_path=job.params.registry,
        scores_path=job.output[0],
        weights_manifests=list(job.input.get("weights", [])),
    )
