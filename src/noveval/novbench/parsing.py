"""Tolerant parser for the three-header novelty-evaluation format of NovBench.

The format is::

    Positive Novelty Evaluations
    - item
    Neutral Novelty Evaluations
    -
    Negative Novelty Evaluations
    - item

Headers are recognised despite case, markdown (``**``, ``__``, ``#``), numbering (``1.``,
``1)``, ``I.``), a trailing colon, the singular "Evaluation" and a few extra words. Only bullet
lines (``-``, ``*``, ``•``, ``+``, ``1.``, ``1)``) are items; indented lines that follow a bullet
continue it, and text after the colon of a header line is an item too. Items lose markdown
emphasis; ones under 10 characters ("None", "N/A") are dropped, and so are repeats of an earlier
item unless ``keep_duplicates`` (the authors' ``transfer()`` in comment_evaluate.py keeps them, so
a repetitive output weighs its repeated label in DistAcc as often as it repeats it).

Repetition rule (``ParsedEvaluation.repetitive``): an output is repetitive when some line of at
least ``MIN_ITEM_CHARS`` characters (compared without its bullet marker, case and spacing; headers
excluded) occurs ``REPEAT_COUNT`` or more times, or when the output has at least
``MIN_NGRAM_TOKENS`` whitespace tokens and the word ``NGRAM_SIZE``-grams that occur
``REPEAT_COUNT`` or more times cover at least ``REPEATED_NGRAM_SHARE`` of its tokens.
"""

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from noveval.core.answers import strip_reasoning

LABELS = ("Positive", "Neutral", "Negative")
HEADERS = {label: f"{label} Novelty Evaluations" for label in LABELS}

MIN_ITEM_CHARS = 10
MAX_HEADER_WORDS = 6
REPEAT_COUNT = 3
NGRAM_SIZE = 5
MIN_NGRAM_TOKENS = 30
REPEATED_NGRAM_SHARE = 0.5


_BULLET = re.compile(
    r"^\s*(?:[-•](?![-•])\s*|[*+–]\s+|\d{1,2}[.)](?!\d)\s*|\(\d{1,2}\)\s*)(?P<text>.*)$"
)
_LINE_PREFIX = re.compile(
    r"^\s*(?:[#>]+\s*)?(?:[-*+•–]\s+|\d{1,2}[.)]\s*|\(\d{1,2}\)\s*|[IVX]{1,4}[.)]\s+)?"
)
_EMPHASISED_HEAD = re.compile(r"^(\*\*|__|\*)(?P<head>[^*_]+?)\1\s*:?\s*(?P<rest>.*)$")
_HEADER_NOISE = re.compile(r"\([^)]*\)|[*_`:#]")
_ENUMERATOR = re.compile(r"^(?:\d{1,2}|[IVX]{1,4})[.)]$")
_WRAPPING_EMPHASIS = re.compile(r"^(__|\*|_)(?P<text>.+)\1$")


@dataclass(frozen=True)
class ParsedEvaluation:
    """Items of one output as (label, text) pairs, with its instruction-following flags."""

    items: list[tuple[str, str]]
    empty: bool
    repetitive: bool
    unparseable: bool

    @property
    def labels(self) -> list[str]:
        """The label of every item, in order."""
        return [label for label, _ in self.items]

    @property
    def texts(self) -> list[str]:
        """The text of every item, in order."""
        return [text for _, text in self.items]


def parse_evaluation(
    text: str | None, think_opened: bool = False, keep_duplicates: bool = False
) -> ParsedEvaluation:
    """Parse a model output (or gold text) into labelled items and failure flags.

    None and other non-strings (a missing value such as NaN) count as a blank, empty output;
    so does an unfinished reasoning block (``think_opened``: see ``strip_reasoning``).
    ``keep_duplicates``: keep repeats of an earlier item, as the authors' scoring does.
    """
    body = strip_reasoning(text, think_opened) if isinstance(text, str) else ""
    if not body:
        return ParsedEvaluation(items=[], empty=True, repetitive=False, unparseable=False)
    found_header, raw_items = _collect_items(body.splitlines())
    items = _clean_items(raw_items, keep_duplicates)
    return ParsedEvaluation(
        items=items,
        empty=not items,
        repetitive=_is_repetitive(body),
        unparseable=not found_header,
    )


def format_evaluation(items: Iterable[tuple[str, str]]) -> str:
    """Render (label, text) items in the canonical format; an empty section gets "-"."""
    by_label: dict[str, list[str]] = {label: [] for label in LABELS}
    for label, text in items:
        if label not in by_label:
            raise ValueError(f"unknown label {label!r}; expected one of {LABELS}")
        by_label[label].append(" ".join(text.split()))
    sections = []
    for label in LABELS:
        bullets = [f"- {text}" for text in by_label[label]] or ["-"]
        sections.append("\n".join([HEADERS[label], *bullets]))
    return "\n\n".join(sections)


def _collect_items(lines: list[str]) -> tuple[bool, list[tuple[str, str]]]:
    """Walk the lines; return whether a header was seen and the raw (label, text) items."""
    found_header = False
    label: str | None = None
    items: list[tuple[str, str]] = []
    item_open = False
    for line in lines:
        if not line.strip():
            item_open = False
            continue
        header = _match_header(line)
        if header:
            found_header = True
            label, rest = header
            item_open = bool(rest)
            if rest:
                items.append((label, rest))
            continue
        if label is None:
            continue
        bullet = _BULLET.match(line)
        if bullet:
            items.append((label, bullet["text"]))
            item_open = True
        elif item_open and line[0].isspace():
            previous_label, previous_text = items[-1]
            items[-1] = (previous_label, f"{previous_text} {line.strip()}")
        else:
            item_open = False
    return found_header, items


def _match_header(line: str) -> tuple[str, str] | None:
    """Return (label, text after the header) when the line is a section header."""
    body = _LINE_PREFIX.sub("", line, count=1).strip()
    emphasised = _EMPHASISED_HEAD.match(body)
    if emphasised:
        head, rest = emphasised["head"], emphasised["rest"]
    else:
        head, _, rest = body.partition(":")
    words = _HEADER_NOISE.sub(" ", head).split()
    while words and (words[0].lower() == "the" or _ENUMERATOR.match(words[0])):
        words = words[1:]
    if not words or len(words) > MAX_HEADER_WORDS:
        return None
    label = words[0].strip(".-–").capitalize()
    if label not in LABELS:
        return None
    keywords = ("novelty", "evaluation")
    if len(words) > 1 and not any(word.lower().startswith(keywords) for word in words[1:]):
        return None
    rest = rest.strip().strip("*_").strip()
    bullet = _BULLET.match(rest)
    return label, (bullet["text"] if bullet else rest)


def _clean_items(
    raw_items: list[tuple[str, str]], keep_duplicates: bool = False
) -> list[tuple[str, str]]:
    """Normalise spacing and emphasis, drop short items and (unless ``keep_duplicates``) all
    but the first of duplicate texts.

    "None", "None." and "N/A" fall under the length floor; longer stand-ins such as
    "[No positive comments provided]" are kept, as in the authors' counts (221 COLING items).
    """
    seen: set[str] = set()
    items = []
    for label, raw_text in raw_items:
        text = " ".join(raw_text.replace("**", "").split())
        wrapped = _WRAPPING_EMPHASIS.match(text)
        if wrapped:
            text = wrapped["text"].strip()
        key = text.casefold().rstrip(".")
        if len(text) < MIN_ITEM_CHARS or (key in seen and not keep_duplicates):
            continue
        seen.add(key)
        items.append((label, text))
    return items


def _is_repetitive(body: str) -> bool:
    """Apply the module's repetition rule to a reasoning-free output."""
    line_counts = Counter()
    for line in body.splitlines():
        if _match_header(line):
            continue
        bullet = _BULLET.match(line)
        key = " ".join((bullet["text"] if bullet else line).casefold().split())
        if len(key) >= MIN_ITEM_CHARS:
            line_counts[key] += 1
    if line_counts and max(line_counts.values()) >= REPEAT_COUNT:
        return True
    tokens = body.casefold().split()
    if len(tokens) < MIN_NGRAM_TOKENS:
        return False
    starts = range(len(tokens) - NGRAM_SIZE + 1)
    grams = [tuple(tokens[start : start + NGRAM_SIZE]) for start in starts]
    gram_counts = Counter(grams)
    covered: set[int] = set()
    for start, gram in zip(starts, grams, strict=True):
        if gram_counts[gram] >= REPEAT_COUNT:
            covered.update(range(start, start + NGRAM_SIZE))
    return len(covered) / len(tokens) >= REPEATED_NGRAM_SHARE
