"""The judge study's labelling rules: which submissions become novel (D₊) or lower-novelty (D₋).

Per primary area, the submissions rated at or above the area's (100 - p)-th percentile are the
top candidates and those at or below the p-th the bottom ones (numpy's linear percentile, as the
authors compute it); excluded areas (the catch-all "other topics") and blocklisted titles are
dropped. After the novelty signals are extracted, a top candidate is D₊ when it was accepted, its
average rating and contribution reach the floors, at least one review gives a positive signal and
none a negative one, and a strict majority of reviews give only positive signals; D₋ mirrors it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from noveval.construction.openreview_notes import ACCEPTED, UNACCEPTED, Skipped

POSITIVE, NEGATIVE = "POSITIVE", "NEGATIVE"


@dataclass(frozen=True)
class Rules:
    """The labelling rules' settings (config ``construction.judges.labels``)."""

    percentile: float = 10.0
    min_positive_rating: float | None = 6.0
    min_positive_contribution: float | None = 3.0
    max_negative_rating: float | None = 3.5
    max_negative_contribution: float | None = 2.0
    excluded_areas: tuple[str, ...] = ("other topics in machine learning",)

    @classmethod
    def of(cls, settings: dict) -> Rules:
        return cls(**{**settings, "excluded_areas": tuple(settings.get("excluded_areas", ()))})


def is_excluded_area(area: str, excluded: tuple[str, ...]) -> bool:
    """An area named by (or starting with) an excluded name, case-insensitively."""
    return any(area.lower().startswith(name.lower()) for name in excluded)


def area_thresholds(records: list[dict], percentile: float) -> dict[str, tuple[float, float]]:
    """``{area: (bottom threshold, top threshold)}`` of the areas' average ratings."""
    ratings: dict[str, list[float]] = {}
    for record in records:
        ratings.setdefault(record["area"], []).append(record["rating"])
    return {
        area: (
            float(np.percentile(values, percentile)),
            float(np.percentile(values, 100 - percentile)),
        )
        for area, values in ratings.items()
    }


def candidates(
    records: list[dict], rules: Rules, blocked_titles: set[str], skipped: Skipped
) -> list[dict]:
    """The top and bottom candidates of every kept area, each with its ``pool`` (POSITIVE for the
    top, NEGATIVE for the bottom). Excluded areas and blocklisted titles go to ``skipped``."""
    kept = []
    for record in records:
        if is_excluded_area(record["area"], rules.excluded_areas):
            skipped.add(record["id"], f"excluded area '{record['area']}'", record["title"])
        elif record["title"].lower() in blocked_titles:
            skipped.add(record["id"], "blocklisted title", record["title"])
        else:
            kept.append(record)
    thresholds = area_thresholds(kept, rules.percentile)
    chosen = []
    for record in kept:
        low, high = thresholds[record["area"]]
        if record["rating"] >= high:
            chosen.append({**record, "pool": POSITIVE})
        elif record["rating"] <= low:
            chosen.append({**record, "pool": NEGATIVE})
    return chosen


def review_agrees(review: dict, pool: str) -> bool:
    """A review whose signals point only the pool's way."""
    positive, negative = review["positive_signals"], review["negative_signals"]
    return bool(positive and not negative) if pool == POSITIVE else bool(negative and not positive)


def rejection(record: dict, rules: Rules) -> str | None:
    """Why a candidate (with its reviews' signals) is not labelled, or None when it is."""
    pool, rating, contribution = record["pool"], record["rating"], record["contribution"]
    reviews = record["reviews"]
    if pool == POSITIVE:
        if record["decision"] != ACCEPTED:
            return "top candidate not accepted"
        if rules.min_positive_rating is not None and rating < rules.min_positive_rating:
            return f"top candidate rated {rating:.2f} < {rules.min_positive_rating}"
        if rules.min_positive_contribution is not None and (
            contribution is None or contribution < rules.min_positive_contribution
        ):
            return f"top candidate contribution {contribution} < {rules.min_positive_contribution}"
        own, other = "positive_signals", "negative_signals"
    else:
        if record["decision"] != UNACCEPTED:
            return "bottom candidate accepted"
        if rules.max_negative_rating is not None and rating > rules.max_negative_rating:
            return f"bottom candidate rated {rating:.2f} > {rules.max_negative_rating}"
        if rules.max_negative_contribution is not None and (
            contribution is None or contribution > rules.max_negative_contribution
        ):
            return (
                f"bottom candidate contribution {contribution} > {rules.max_negative_contribution}"
            )
        own, other = "negative_signals", "positive_signals"
    if any(review[other] for review in reviews):
        return f"a review gives {other.replace('_', ' ')}"
    if not any(review[own] for review in reviews):
        return f"no review gives {own.replace('_', ' ')}"
    agreeing = sum(review_agrees(review, pool) for review in reviews)
    if not agreeing > len(reviews) / 2:
        return f"only {agreeing} of {len(reviews)} reviews give {own.replace('_', ' ')}"
    return None


def labelled(candidates_with_signals: list[dict], rules: Rules, skipped: Skipped) -> list[dict]:
    """The candidates that pass the rules; the others go to ``skipped`` with the rule they fail."""
    kept = []
    for record in candidates_with_signals:
        reason = rejection(record, rules)
        if reason is None:
            kept.append(record)
        else:
            skipped.add(record["id"], reason, record["title"])
    return kept
