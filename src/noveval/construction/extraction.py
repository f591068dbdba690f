"""Requests of the extraction steps (is this introduction sentence a novelty description? does
this review sentence evaluate novelty?) and the reading of their answers.

Every request is one user message with the authors' prompt; the "step" prompt is a chain of two
calls, whose second prompt is built from the first answer's "Main idea" and "Refers to" lines.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from noveval.construction import authors
from noveval.construction.sentences import context_windows, says_yes, step_summary_fields
from noveval.core.registry import ModelSpec
from noveval.inference.requests import build_request

# What each first-round prompt is given; the step prompt's first call sees the sentence only.
FIRST_ROUND = {"direct": "direct", "context": "context", "few_shot": "few_shot"}
FIRST_ROUND.update(step="step_summary", review="review")


def with_contexts(sentences: pd.DataFrame) -> pd.DataFrame:
    """``sentences`` (``paper_id``, ``sentence``, in reading order) with each sentence's
    context window, taken within its paper."""
    contexts = pd.Series(index=sentences.index, dtype=object)
    for _, group in sentences.groupby("paper_id", sort=False):
        contexts[group.index] = context_windows(list(group["sentence"]))
    return sentences.assign(context=contexts)


def prompt_requests(
    sentences: pd.DataFrame,
    prompt: str,
    spec: ModelSpec,
    decoding: dict,
    upstream_root: str,
    per_occurrence: bool = False,
) -> list[dict]:
    """One request per sentence (``item_id``, ``sentence``, and ``context`` for the context
    prompt) with the first-round prompt of ``prompt`` (a key of ``FIRST_ROUND``). Sentences with
    the same prompt share one call, or with ``per_occurrence`` each repeat is a call of its own
    (its id counts the earlier occurrences)."""
    template = authors.template(upstream_root, FIRST_ROUND[prompt])
    seen: Counter[str] = Counter()
    rows = []
    for sentence in sentences.to_dict("records"):
        values = {name: sentence[name] for name in template.placeholders}
        content = template.render(**values)
        rows.append(
            build_request(
                item_id=sentence["item_id"],
                spec=spec,
                messages=[{"role": "user", "content": content}],
                decoding=decoding,
                repeat=seen[content] if per_occurrence else 0,
            )
        )
        seen[content] += 1
    return rows


def step_decision_requests(
    first_answers: pd.DataFrame, spec: ModelSpec, decoding: dict, upstream_root: str
) -> list[dict]:
    """The second call of the step prompt for each first answer (``item_id``, ``text``); a
    failed first call gets no second one (the sentence counts as unanswered)."""
    template = authors.template(upstream_root, "step_decision")
    answered = first_answers[first_answers["text"].notna()]
    return [
        build_request(
            item_id=answer["item_id"],
            spec=spec,
            messages=[
                {"role": "user", "content": template.render(**step_summary_fields(answer["text"]))}
            ],
            decoding=decoding,
        )
        for answer in answered.to_dict("records")
    ]


def decisions(items: pd.Series, answers: pd.DataFrame) -> pd.DataFrame:
    """Per item: ``answered`` (a reply came back) and ``yes`` (the authors' reading of it)."""
    by_item = dict(zip(answers["item_id"], answers["text"]))
    texts = [by_item.get(item) for item in items]
    return pd.DataFrame(
        {
            "item_id": list(items),
            "answered": [text is not None and not pd.isna(text) for text in texts],
            "yes": [says_yes(None if pd.isna(text) else text) for text in texts],
        }
    )
