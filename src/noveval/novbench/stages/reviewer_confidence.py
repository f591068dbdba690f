"""Stage novbench_reviewer_confidence: Table 8, similarity to high- vs low-confidence reviews."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.core.assets import file_digest
from noveval.core.jobs import call_with_job
from noveval.core.registry import load_registry
from noveval.inference.weights import use_offline
from noveval.novbench import confidence
from noveval.novbench.paper_tables import ANNOTATIONS_DIGEST


def reviewer_confidence_table(
    responses_paths: list[str],
    pairs_path: str,
    encoder: str,
    registry_path: str,
    csv_path: str,
    weights_paths: list[str] = (),
) -> None:
    """Table 8: each cell's mean similarity to the high- and low-confidence reviews, with the
    confidence file's SHA-256 (``annotations_sha256``; responses paths name their model, as
    ``.../<model>/responses/cells.parquet``). A hub encoder loads from its snapshot of
    ``weights_paths`` (rule weights' manifests), with the hub off."""
    located = use_offline(weights_paths)
    from noveval.inference.encoders import SentenceEncoder

    outputs = []
    for path in responses_paths:
        responses = pd.read_parquet(path)
        strategy_perturbation = responses["cell"].str.split("-", n=1, expand=True)
        outputs.append(
            pd.DataFrame(
                {
                    "model": Path(path).parent.parent.name,
                    "strategy": strategy_perturbation[0],
                    "perturbation": strategy_perturbation[1],
                    "paper_id": responses["item_id"].astype(str),
                    "text": responses["text"].where(responses["error"].isna()),
                }
            )
        )
    texts = confidence.cell_texts(
        pd.concat(outputs, ignore_index=True), confidence.read_pairs(pairs_path)
    )
    reference = load_registry(registry_path).encoder(encoder)
    vectors = SentenceEncoder(located.get(reference, reference)).encode(
        confidence.texts_to_embed(texts)
    )
    table = confidence.similarities(texts, vectors).assign(
        encoder=encoder, **{ANNOTATIONS_DIGEST: file_digest(Path(pairs_path))}
    )
    table.to_csv(csv_path, index=False)


def run(job) -> None:
    """One job of rule novbench_reviewer_confidence."""
    call_with_job(reviewer_confidence_table, job)
