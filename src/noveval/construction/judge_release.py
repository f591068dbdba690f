"""The judge study's release layout from the labelled pools: area-matched pairs and pointwise
ideas, written as the authors' YAML (``{setup}/pairwise.yaml``, ``{setup}/pointwise.yaml``).

Pairwise: per primary area (in name order), the D₊ ideas and the D₋ ideas are shuffled and each
D₊ idea is paired with the next D₋ idea, the D₋ ideas reshuffled and reused when they run out; the
two slots are shuffled. An area without a D₊ or a D₋ idea gives no pair and is counted. Pointwise:
every idea of the pools, labelled by its pool, shuffled. The random generator is seeded
(``construction.judges.seed``), so a rebuild writes the same files.
"""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from noveval.construction.selection import NEGATIVE, POSITIVE

HUMAN_ONLY, HUMAN_PLUS_GENERATED = "human-only", "human-plus-generated"
NOT_RATED = "N/A"


def metadata(paper: dict, pool: str) -> dict:
    """An idea's metadata as the release writes it (a generated idea has no scores or signals)."""
    signals = {
        key: [] for key in ("positive_signals", "negative_signals", "similar_papers_mentioned")
    }
    for review in paper.get("reviews", []):
        for key in signals:
            signals[key].extend(review.get(key, []))
    scores = {
        name: NOT_RATED if paper.get(name) is None else f"{paper[name]:.2f}"
        for name in ("rating", "contribution")
    }
    return {"title": paper["title"], "area": paper["area"], **scores, "type": pool, **signals}


def area_pairs(
    positives: list[dict], negatives: list[dict], rng: random.Random
) -> list[tuple[dict, dict]]:
    """Each D₊ paper with a D₋ paper of the same area (D₋ reused, reshuffled, when fewer)."""
    positives, negatives = list(positives), list(negatives)
    rng.shuffle(positives)
    rng.shuffle(negatives)
    pairs, next_negative = [], 0
    for positive in positives:
        if next_negative == len(negatives):
            rng.shuffle(negatives)
            next_negative = 0
        pairs.append((positive, negatives[next_negative]))
        next_negative += 1
    return pairs


def by_area(papers: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for paper in papers:
        grouped.setdefault(paper["area"], []).append(paper)
    return grouped


def pairwise(
    positives: list[dict], negatives: list[dict], seed: int
) -> tuple[dict[int, dict], list[str]]:
    """Pairwise instances ``{id: {context, expected_winners, ideas, metadata}}`` and the areas
    left without pairs (no D₊ or no D₋ idea)."""
    rng = random.Random(seed)
    pos, neg = by_area(positives), by_area(negatives)
    instances, unpaired = {}, []
    for area in sorted(pos.keys() | neg.keys()):
        if not pos.get(area) or not neg.get(area):
            unpaired.append(area)
            continue
        for positive, negative in area_pairs(pos[area], neg[area], rng):
            slots = [(positive, POSITIVE), (negative, NEGATIVE)]
            rng.shuffle(slots)
            instances[len(instances)] = {
                "context": area,
                "expected_winners": [next(i for i, (_, p) in enumerate(slots) if p == POSITIVE)],
                "ideas": {i: paper["idea"] for i, (paper, _) in enumerate(slots)},
                "metadata": {i: metadata(paper, pool) for i, (paper, pool) in enumerate(slots)},
            }
    return instances, unpaired


def pointwise(positives: list[dict], negatives: list[dict], seed: int) -> dict[int, dict]:
    """Pointwise instances ``{id: {context, idea, label, metadata}}`` of every idea."""
    tagged = [(paper, POSITIVE) for paper in positives] + [(paper, NEGATIVE) for paper in negatives]
    random.Random(seed).shuffle(tagged)
    return {
        index: {
            "context": paper["area"],
            "idea": paper["idea"],
            "label": pool,
            "metadata": metadata(paper, pool),
        }
        for index, (paper, pool) in enumerate(tagged)
    }


def write_instances(instances: dict, path: str | Path) -> None:
    """One release file, written as the authors write theirs (sorted keys, unicode kept)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(
        yaml.dump(instances, sort_keys=True, allow_unicode=True, width=float("inf")),
        encoding="utf-8",
    )


def setup_pools(
    labelled: list[dict], generated: dict[str, list[dict]]
) -> dict[str, tuple[list[dict], list[dict]]]:
    """``{setup: (D₊, D₋)}``: Human-Only pits D₊ against the human D₋, Human+Generated against
    the generated ideas of each D₊ idea's area."""
    positives = [paper for paper in labelled if paper["pool"] == POSITIVE]
    human = [paper for paper in labelled if paper["pool"] == NEGATIVE]
    machine = [idea for ideas in generated.values() for idea in ideas]
    return {HUMAN_ONLY: (positives, human), HUMAN_PLUS_GENERATED: (positives, machine)}
