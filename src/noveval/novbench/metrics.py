"""NovBench per-paper metrics as pure functions (no models; embeddings are L2-normalised rows)."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

KEYWORD_PATTERN = re.compile(r"\b[A-Za-z0-9\-]+\b")
KEYWORD_MIN_LENGTH = 6
LENGTH_TARGET_TOKENS = 20


def relevance(description_embeddings: np.ndarray, item_embeddings: np.ndarray) -> float:
    """Mean over descriptions of the best IMS = 1 + 4·clip(cos, 0, 1) over items; 0 if none."""
    if len(item_embeddings) == 0 or len(description_embeddings) == 0:
        return 0.0
    cosines = np.asarray(description_embeddings) @ np.asarray(item_embeddings).T
    ims = 1.0 + 4.0 * np.clip(cosines, 0.0, 1.0)
    return float(ims.max(axis=1).mean())


def coverage(
    gold_embeddings: np.ndarray, item_embeddings: np.ndarray, threshold: float = 0.7
) -> float:
    """Share of gold items whose best cosine to any item is at least ``threshold`` (0 if none)."""
    if len(item_embeddings) == 0 or len(gold_embeddings) == 0:
        return 0.0
    cosines = np.asarray(gold_embeddings) @ np.asarray(item_embeddings).T
    return float((cosines.max(axis=1) >= threshold).mean())


def dist_acc(item_labels: list[str], gold_labels: list[str]) -> float:
    """1 − ½·L1 distance between the item and gold label distributions; 0 if either is empty."""
    if not item_labels or not gold_labels:
        return 0.0
    item_counts, gold_counts = Counter(item_labels), Counter(gold_labels)
    labels = set(item_counts) | set(gold_counts)
    l1 = sum(
        abs(item_counts[label] / len(item_labels) - gold_counts[label] / len(gold_labels))
        for label in labels
    )
    return 1.0 - l1 / 2.0


def keywords(descriptions: list[str]) -> set[str]:
    """Lower-cased description tokens longer than five characters."""
    return {
        token.lower()
        for sentence in descriptions
        for token in KEYWORD_PATTERN.findall(sentence)
        if len(token) >= KEYWORD_MIN_LENGTH
    }


def keyword_coverage(descriptions: list[str], items: list[str]) -> float:
    """KC: share of items containing some description keyword (case-insensitive substring)."""
    description_keywords = keywords(descriptions)
    if not description_keywords or not items:
        return 0.0
    hits = sum(any(keyword in item.lower() for keyword in description_keywords) for item in items)
    return hits / len(items)


def length_score(items: list[str]) -> float:
    """LS = min(mean whitespace-token count per item / 20, 1); 0 for no items."""
    if not items:
        return 0.0
    mean_tokens = sum(len(item.split()) for item in items) / len(items)
    return min(mean_tokens / LENGTH_TARGET_TOKENS, 1.0)


def fluency_score(perplexities: list[float]) -> float:
    """FS = mean of 1 / (1 + perplexity); 0 for no items."""
    if len(perplexities) == 0:
        return 0.0
    return float(np.mean([1.0 / (1.0 + ppl) for ppl in perplexities]))


def clarity(kc: float, ls: float, fs: float) -> float:
    """Clarity = (KC + LS + FS) / 3."""
    return (kc + ls + fs) / 3.0
