"""The extraction steps scored against the authors' labels (Appendices A and B of NovBench).

Appendix A: 2,300 introduction sentences of 87 COLING-2020 papers, labelled 1 when the sentence
states the paper's novelty (GBK-encoded CSV ``paper_id, sentence, label``). Appendix B: 493
review sentences that evaluate novelty (``[text, "NOVELTY"]``) and 500 that do not
(``{text, labels}``). Scores: accuracy and macro-F1 (scikit-learn); an unanswered call counts as
"No", as an empty answer does in the authors' reading, and is counted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from noveval.construction.extraction import with_contexts

INTRODUCTION_COLUMNS = ("paper_id", "sentence", "label")
SCORE_COLUMNS = [
    "step",
    "model",
    "prompt",
    "sentences",
    "positives",
    "unanswered",
    "accuracy",
    "macro_f1",
]


def introduction_labels(path: str | Path, limit: int | None = None) -> pd.DataFrame:
    """The labelled introduction sentences with their context windows (taken in the whole
    paper), the first ``limit`` of them; ``item_id`` is the row number in the file."""
    try:
        labels = pd.read_csv(path, encoding="gbk", dtype={"paper_id": str})
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not GBK-encoded ({error})") from error
    missing = [column for column in INTRODUCTION_COLUMNS if column not in labels.columns]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)}")
    bad = labels[~labels["label"].isin([0, 1])]
    if len(bad):
        raise ValueError(f"{path}: row {bad.index[0]} has label {bad['label'].iloc[0]!r}, not 0/1")
    labels = with_contexts(labels[list(INTRODUCTION_COLUMNS)])
    labels.insert(0, "item_id", [f"intro{index}" for index in labels.index])
    return labels.head(limit) if limit is not None else labels


def review_labels(
    novelty_path: str | Path, other_path: str | Path, limit: int | None = None
) -> pd.DataFrame:
    """The labelled review sentences (1: evaluates novelty), the first ``limit`` of each file."""
    novelty = _json_list(novelty_path)
    other = _json_list(other_path)
    rows = []
    for index, entry in enumerate(novelty[:limit]):
        if not (isinstance(entry, list) and entry and isinstance(entry[0], str)):
            raise ValueError(f"{novelty_path}: record {index} is not [text, label]")
        rows.append({"item_id": f"novelty{index}", "sentence": entry[0], "label": 1})
    for index, entry in enumerate(other[:limit]):
        if not (isinstance(entry, dict) and isinstance(entry.get("text"), str)):
            raise ValueError(f"{other_path}: record {index} has no text")
        rows.append({"item_id": f"other{index}", "sentence": entry["text"], "label": 0})
    return pd.DataFrame(rows, columns=["item_id", "sentence", "label"])


def scores(labels: pd.DataFrame, decided: pd.DataFrame) -> dict:
    """Accuracy and macro-F1 of the decisions (``item_id``, ``answered``, ``yes``) against the
    labels (``item_id``, ``label``)."""
    from sklearn.metrics import accuracy_score, f1_score

    joined = labels[["item_id", "label"]].merge(decided, on="item_id", how="left")
    predicted = joined["yes"].fillna(False).astype(int)
    return {
        "sentences": len(joined),
        "positives": int(joined["label"].sum()),
        "unanswered": int((~joined["answered"].fillna(False).astype(bool)).sum()),
        "accuracy": float(accuracy_score(joined["label"], predicted)),
        "macro_f1": float(f1_score(joined["label"], predicted, average="macro", zero_division=0)),
    }


def _json_list(path: str | Path) -> list:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a JSON file ({error})") from error
    if not isinstance(data, list):
        raise ValueError(f"{path}: not a JSON list")
    return data


def labelled_sentences(prompt: str, labels: dict) -> pd.DataFrame:
    """The labelled sentences a validated prompt is scored on (``labels``: the config's
    ``validation`` section)."""
    if prompt == "review":
        return review_labels(
            labels["review_labels"]["novelty"], labels["review_labels"]["other"], labels["limit"]
        )
    return introduction_labels(labels["introduction_labels"], labels["limit"])
