"""One judge call's answer → its verdict: a JSON object, parsed tolerantly.

(The paper mode's answers, in the authors' format, are parsed by
``authors.parse_authors_verdict``.)

Pointwise answers hold ``{"novelty": 0|1}``; pairwise answers ``{"more_novel": 1|2}`` (the ideas
are shown as Idea 1 and Idea 2), returned as the 0-based index of the idea as shown. Anything
else is ``None``: a failed call, counted, never an exception.
"""

from __future__ import annotations

import json
import re

import pandas as pd

from noveval.core.answers import strip_reasoning
from noveval.judges import authors
from noveval.judges.prompts import split_item_id

# The columns of a cell's verdicts table (every judge, the dedicated ones included).
VERDICT_COLUMNS = [
    "model",
    "setup",
    "ideas",  # the form of the ideas judged
    "change",  # the change alone (or the dedicated system)
    "instance_id",
    "run",
    "label",
    "verdict",
    "n_calls",
    "n_failed",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "cached_input_tokens",
    "cache_creation_tokens",
    "batch_calls",
    "latency_s",
    "web_searches",
]

KEYS = {"pointwise": "novelty", "pairwise": "more_novel"}
_FALLBACK = {
    "pointwise": re.compile(r"[\"']?novelty[\"']?\s*[:=]\s*[\"']?(0|1|true|false|yes|no)\b", re.I),
    "pairwise": re.compile(r"[\"']?more_novel[\"']?\s*[:=]\s*[\"']?(?:idea\s*)?([12])\b", re.I),
}
_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no"}


def json_objects(text: str) -> list[dict]:
    """Every JSON object embedded in ``text``, in order."""
    decoder = json.JSONDecoder()
    found, start = [], text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        start = text.find("{", end)
    return found


def _coerce(value, format: str) -> int | None:
    word = str(value).strip().lower().removeprefix("idea").strip()
    if format == "pointwise":
        return 1 if word in _TRUE else 0 if word in _FALSE else None
    return {"1": 0, "2": 1}.get(word)


def parse_json_verdict(text: str | None, format: str) -> int | None:
    """The verdict of one answer (pointwise 1/0, pairwise 0-based index), or ``None``."""
    if format not in KEYS:
        raise ValueError(f"unknown format '{format}'")
    answer = strip_reasoning(text or "")
    for candidate in reversed(json_objects(answer)):
        if KEYS[format] in candidate:
            verdict = _coerce(candidate[KEYS[format]], format)
            if verdict is not None:
                return verdict
    matches = _FALLBACK[format].findall(answer)
    return _coerce(matches[-1], format) if matches else None


def _recorded(response: dict, key: str):
    """A response's value of ``key``, 0 where the table does not record it."""
    value = response.get(key)
    return 0 if value is None or pd.isna(value) else value


def calls_from_responses(
    responses: pd.DataFrame, format: str, prompts: str = "builtin", parse=None
) -> pd.DataFrame:
    """A responses table → one row per call: instance, order, call index, parsed choice, tokens,
    cost, batch flag, latency and web searches.

    ``prompts='authors'`` parses the authors' verdict format with their semantics; ``parse``
    (text, format) -> verdict or None, a judge's own rule (``noveval.judges.cards.judge``). A call
    that failed or whose answer cannot be parsed has ``choice`` None (and ``failed``).
    """
    if parse is None:
        parse = authors.parse_authors_verdict if prompts == "authors" else parse_json_verdict
    rows = []
    for response in responses.to_dict("records"):
        instance_id, order, call = split_item_id(response["item_id"])
        failed = pd.notna(response.get("error"))
        choice = None if failed else parse(response["text"], format)
        rows.append(
            {
                "instance_id": instance_id,
                "order": order,
                "call": call,
                "choice": choice,
                "failed": choice is None,
                "error": response.get("error") if failed else None,
                "input_tokens": int(response["input_tokens"] or 0),
                "output_tokens": int(response["output_tokens"] or 0),
                "cost_usd": float(response["cost_usd"] or 0.0),
                "cached_input_tokens": int(_recorded(response, "cached_input_tokens")),
                "cache_creation_tokens": int(_recorded(response, "cache_creation_tokens")),
                "batch": bool(_recorded(response, "batch")),
                "latency_s": float(_recorded(response, "latency_s")),
                "web_searches": int(_recorded(response, "web_searches")),
            }
        )
    frame = pd.DataFrame(rows)
    frame["choice"] = frame["choice"].astype("Int64")
    return frame
