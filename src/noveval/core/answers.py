"""What every track reads out of a model's answer before its own parsing: the text without the
reasoning block, and the judge study's JSON object (``extract_json_choice``, which the judges and
the literature search's steps both read answers with)."""

from __future__ import annotations

import ast
import json
import re

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_THINKING = re.compile(r"<thinking>.*?</thinking>", re.DOTALL)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
_LIST_CLOSED_BY_BRACE = re.compile(r"\[([^\{\[]*?)\}", re.DOTALL)


def strip_reasoning(text: str | None, think_opened: bool = False) -> str:
    """The answer without ``<think>`` reasoning (both tracks): a ``</think>`` without its
    ``<think>`` (the R1 distills' template opens the block in the prompt) ends reasoning that ran
    from the start; an unclosed ``<think>`` hides everything after it. None: ``""``.
    ``think_opened``: the template opened the block, so an answer without ``</think>`` (cut off by
    the token limit) is reasoning only: ``""``."""
    text = text or ""
    if think_opened and not _THINK_CLOSE.search(text):
        return ""
    text = _THINK_BLOCK.sub("", text)
    closings = list(_THINK_CLOSE.finditer(text))
    if closings:
        text = text[closings[-1].end() :]
    opening = _THINK_OPEN.search(text)
    if opening:
        text = text[: opening.start()]
    return text.strip()


def extract_json(text: str | None):
    """Their ``extract_json_choice``: the first candidate object that any of four parses accept.

    Candidates (outside ``<thinking>`` blocks): fenced ```json blocks, then the span from the
    first ``{`` to the last ``}``; each is tried as JSON, as a Python literal, with single quotes
    swapped for double ones, and with a list closed by ``}`` repaired.
    """
    if not text:
        return None
    search = _THINKING.sub("", text).strip()
    candidates = _FENCED.findall(search)
    start, end = search.find("{"), search.rfind("}")
    if start != -1 and end > start and search[start : end + 1] not in candidates:
        candidates.append(search[start : end + 1])
    for candidate in candidates:
        for parse in (
            json.loads,
            ast.literal_eval,
            lambda s: json.loads(s.replace("'", '"')),
            lambda s: json.loads(_LIST_CLOSED_BY_BRACE.sub(r"[\1]", s)),
        ):
            try:
                return parse(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    return None
