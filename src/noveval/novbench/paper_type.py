"""Tables 6 and 7: NovBench scores split by paper type (methodological vs resource).

The authors labelled each EMNLP-2023 paper with GPT-4o from its title and abstract
(``rebuttal_result/type_class.py``, released as ``Final_data_classification.json``: the release
records with a ``classification`` field) and averaged each configuration's per-paper scores over
the papers labelled exactly ``Methodological`` or ``Resource`` (``count_score_re.py``); any other
answer is left out. Their prompt is read from the pinned script, where it stands commented out.
"""

from __future__ import annotations

import ast
import logging
import re

import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.inference.requests import build_request
from noveval.novbench import tables
from noveval.novbench.authors import AuthorsPrompt, _part
from noveval.novbench.generation import call_decoding
from noveval.novbench.records import read_records

log = logging.getLogger(__name__)

CLASSIFIER_SCRIPT = "rebuttal_result/type_class.py"
CLASSIFIER_FUNCTION = "replace_academic_texts"
# The classifier's answers the authors' tables keep, and our names for them.
PAPER_TYPES = {"Methodological": "method", "Resource": "resource"}
TABLES = {"method": "6", "resource": "7"}


def read_labels(path: str) -> pd.Series:
    """paper_id → the classifier's answer, from release records with ``classification``."""
    labels = {}
    for index, record in enumerate(read_records(path)):
        if not isinstance(record, dict) or "id" not in record or "classification" not in record:
            raise ValueError(f"{path}: record {index} has no 'id' and 'classification'")
        labels[str(record["id"])] = record["classification"]
    return pd.Series(labels, name="classification")


def paper_types(labels: pd.Series) -> pd.Series:
    """paper_id → ``method`` / ``resource``; papers with any other answer are left out."""
    kept = labels[labels.isin(list(PAPER_TYPES))].map(PAPER_TYPES)
    if len(kept) < len(labels):
        other = labels[~labels.isin(list(PAPER_TYPES))].value_counts().to_dict()
        log.warning(
            "%d papers left out, answer not one of the two types: %s",
            len(labels) - len(kept),
            other,
        )
    return kept.rename("paper_type")


def split_table(scores: pd.DataFrame, labels: pd.Series) -> pd.DataFrame:
    """Table 2's summary (:func:`tables.summarise`) once per paper type, ``paper_type`` first."""
    types = paper_types(labels)
    typed = scores.merge(types, left_on="paper_id", right_index=True, how="inner")
    if typed.empty:
        raise ValueError("no scored paper has a paper-type label (paper_types: ids do not match)")
    unlabelled = set(scores["paper_id"]) - set(typed["paper_id"])
    if unlabelled:
        log.warning("%d scored papers have no paper-type label and are left out", len(unlabelled))
    parts = [
        tables.summarise(typed[typed["paper_type"] == kind]).assign(paper_type=kind)
        for kind in TABLES
        if (typed["paper_type"] == kind).any()
    ]
    table = pd.concat(parts, ignore_index=True)
    return table[["paper_type", *table.columns.drop("paper_type")]]


def classifier_prompt(source: str, path: str = CLASSIFIER_SCRIPT) -> AuthorsPrompt:
    """The authors' classification prompt, out of the commented-out function of their script."""
    lines = source.splitlines()
    starts = [i for i, line in enumerate(lines) if f"def {CLASSIFIER_FUNCTION}(" in line]
    if len(starts) != 1:
        raise ValueError(f"{path}: expected one {CLASSIFIER_FUNCTION} function")
    block = []
    for line in lines[starts[0] :]:
        if not line.startswith("#"):
            break
        block.append(re.sub(r"^# ?", "", line))
        if block[-1].rstrip().endswith("'''") and len(block) > 2:
            break
    function = ast.parse("\n".join(block)).body[0]
    returned = function.body[0]
    if not isinstance(returned, ast.Return) or not isinstance(returned.value, ast.JoinedStr):
        raise ValueError(f"{path}: {CLASSIFIER_FUNCTION} does not return one f-string")
    parameters = tuple(argument.arg for argument in function.args.args)
    parts = tuple(_part(value, parameters, path) for value in returned.value.values)
    return AuthorsPrompt(path, parameters, parts, None)


def classification_requests(
    papers: pd.DataFrame, prompt: AuthorsPrompt, spec: ModelSpec, decoding: dict
) -> list[dict]:
    """One call per paper, the prompt filled with its title and abstract (one user message)."""
    return [
        build_request(
            item_id=paper["paper_id"],
            spec=spec,
            messages=[
                {"role": "user", "content": prompt.render(paper["title"], paper["abstract"])}
            ],
            decoding=call_decoding(decoding),
        )
        for paper in papers.to_dict("records")
    ]


def labels_from_responses(responses: pd.DataFrame) -> list[dict]:
    """Records ``{id, classification}`` in the authors' file format, the answer as given (a
    failed call has classification None, which no table keeps)."""
    return [
        {"id": row["item_id"], "classification": None if pd.notna(row["error"]) else row["text"]}
        for row in responses.to_dict("records")
    ]
