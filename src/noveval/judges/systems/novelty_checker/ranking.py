"""The Idea Novelty Checker's cut of the literature: the papers most similar to the idea in an
embedding, then RankGPT's windows over them, applied back to front."""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

log = logging.getLogger(__name__)


EMBEDDED_PAPERS = 100  # max_papers_specter
SEPARATOR = "[SEP]"  # Specter2's tokenizer.sep_token between title and abstract

WINDOW, STEP, PASSAGE_WORDS = 20, 10, 300


def content(paper: dict) -> str:
    """A paper as RankGPT's hit: "Title: … Content: …"."""
    return f"Title: {paper['title']}. Content: {paper['abstract']}"


def passage(paper: dict) -> str:
    """A hit as its window shows it: at most 300 words."""
    return " ".join(content(paper).replace("Title: Content: ", "").strip().split()[:PASSAGE_WORDS])


def windows(count: int, size: int = WINDOW, step: int = STEP) -> list[tuple[int, int]]:
    """RankGPT's windows of ``size`` over ``count`` passages, each ``step`` nearer the front,
    back to front (none under ``size``)."""
    spans, start = [], count - size
    while start >= 0:
        spans.append((start, start + size))
        start -= step
    return spans


def permutation(answer: str, size: int) -> list[int]:
    """The order an answer gives a window's ``size`` passages: its numbers (1-based) in order,
    repeats and those out of range dropped, the passages it leaves out after in their order."""
    numbers = [int(n) - 1 for n in "".join(c if c.isdigit() else " " for c in answer).split()]
    order = [n for i, n in enumerate(numbers) if n not in numbers[:i] and 0 <= n < size]
    return order + [n for n in range(size) if n not in order]


def reranked(
    papers: list[dict],
    answers: dict[tuple[int, int], str | None],
    size: int = WINDOW,
    step: int = STEP,
) -> list[dict]:
    """The papers after each window's answer, applied back to front (a missing answer leaves
    its window as it is); papers with the same passage take the last one's place, as their
    mapping from passage to position does."""
    hits = list(papers)
    for start, end in windows(len(papers), size, step):
        answer = answers.get((start, end))
        if answer is None:
            continue
        window = hits[start:end]
        hits[start:end] = [window[i] for i in permutation(answer, len(window))]
    position = {content(p): i for i, p in enumerate(hits)}
    return sorted(papers, key=lambda p: position[content(p)])


def embedding_text(title: str | None, abstract: str | None) -> str:
    """Title and abstract as Specter2 reads a paper (a missing one as a space)."""
    title, abstract = (" " if text is None else text for text in (title, abstract))
    return f"{title}{SEPARATOR}{abstract}"


def most_similar(
    idea: str, papers: list[dict], encode: Callable[[list[str]], dict], keep: int = EMBEDDED_PAPERS
) -> list[dict]:
    """The ``keep`` papers most cosine-similar to the idea, most similar first (ties in the
    papers' order), with a title and an abstract."""
    if not papers:
        return []
    idea_text = embedding_text("", idea)
    texts = [embedding_text(p.get("title"), p.get("abstract")) for p in papers]
    vectors = encode([idea_text, *texts])
    matrix = np.vstack([vectors[t] for t in texts]).astype(float)
    query = np.asarray(vectors[idea_text], dtype=float)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    similarity = matrix @ query / np.where(norms == 0, 1, norms)
    order = np.argsort(-similarity, kind="stable")[:keep]
    return [
        {**papers[i], "similarity": float(similarity[i])}
        for i in order
        if papers[i].get("title") is not None and papers[i].get("abstract") is not None
    ]
