"""Table 8: how close each model's evaluation is to a paper's high- vs low-confidence review.

The authors' input (``rebuttal_result/review_confidence.json``) holds the EMNLP-2023 papers whose
reviewers' confidence differs by at least 3: per paper the text of the most and of the least
confident review (``id, review_high, review_low``). ``count_score_re.py`` embeds a model's whole
output, and both reviews, with all-MiniLM-L6-v2, and averages the cosine similarities over the
papers; a paper the model has no output for counts with the empty text. Diff = high − low.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from noveval.novbench.records import read_records

CELL = ["model", "strategy", "perturbation"]
PAIR_KEYS = ("id", "review_high", "review_low")


def read_pairs(path: str) -> pd.DataFrame:
    """``paper_id, review_high, review_low`` per paper of the confidence file."""
    rows = []
    for index, record in enumerate(read_records(path)):
        if not isinstance(record, dict) or any(key not in record for key in PAIR_KEYS):
            raise ValueError(f"{path}: record {index} lacks one of {', '.join(PAIR_KEYS)}")
        rows.append(
            {
                "paper_id": str(record["id"]),
                "review_high": record["review_high"],
                "review_low": record["review_low"],
            }
        )
    return pd.DataFrame(rows)


def cell_texts(outputs: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Each cell's output text for every paper of ``pairs`` ("" where it has none, or the call
    failed), with ``missing`` marking those papers."""
    frames = []
    for cell, group in outputs.groupby(CELL, sort=True):
        answered = group.dropna(subset=["text"]).drop_duplicates("paper_id").set_index("paper_id")
        text = pairs["paper_id"].map(answered["text"])
        frames.append(
            pairs.assign(
                **dict(zip(CELL, cell)), text=text.fillna(""), missing=text.isna().to_numpy()
            )
        )
    return pd.concat(frames, ignore_index=True)


def texts_to_embed(texts: pd.DataFrame) -> list[str]:
    """Every text the similarities need."""
    return list(dict.fromkeys([*texts["text"], *texts["review_high"], *texts["review_low"]]))


def similarities(texts: pd.DataFrame, vectors: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Mean cosine of each cell's outputs to the high- and the low-confidence reviews, and Diff
    (``vectors``: text → L2-normalised embedding)."""

    def cosine(first: pd.Series, second: pd.Series) -> np.ndarray:
        a = np.stack([vectors[t] for t in first])
        b = np.stack([vectors[t] for t in second])
        return np.einsum("ij,ij->i", a, b)

    scored = texts.assign(
        high=cosine(texts["text"], texts["review_high"]),
        low=cosine(texts["text"], texts["review_low"]),
    )
    table = scored.groupby(CELL, sort=True).agg(
        high=("high", "mean"),
        low=("low", "mean"),
        n_papers=("paper_id", "size"),
        n_missing=("missing", "sum"),
    )
    table.insert(2, "diff", table["high"] - table["low"])
    return table.reset_index()
