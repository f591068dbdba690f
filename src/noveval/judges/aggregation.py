"""Votes of repeated judge calls → one verdict per instance.

Pointwise: the majority of the calls' 0/1 votes. Pairwise: calls in both presentation orders,
each vote mapped back to the idea it names; the idea with more votes wins. An even split, or no
valid vote at all, is a tie (``TIE``).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

TIE = -1


def majority(votes: Iterable[int | None]) -> int:
    """The 0/1 value voted more often; ``TIE`` on an even split or when every vote failed."""
    valid = [v for v in votes if v is not None]
    ones = sum(valid)
    zeros = len(valid) - ones
    return 1 if ones > zeros else 0 if zeros > ones else TIE


def idea_vote(order: int, choice: int | None) -> int | None:
    """The release index of the idea a pairwise call chose (order 1 shows the ideas swapped)."""
    if choice is None:
        return None
    return choice if order == 0 else 1 - choice


def aggregate_pointwise(votes: Iterable[int | None]) -> int:
    """Pointwise verdict from the calls' votes."""
    return majority(votes)


def aggregate_pairwise(votes: Iterable[tuple[int, int | None]]) -> int:
    """Pairwise verdict (index of the winning idea, or ``TIE``) from ``(order, choice)`` votes."""
    return majority(idea_vote(order, choice) for order, choice in votes)


def first_calls(calls: pd.DataFrame) -> pd.DataFrame:
    """The first call of each instance and order: the no-aggregation configuration."""
    return calls[calls["call"] == 0]


def aggregate(calls: pd.DataFrame, format: str) -> pd.DataFrame:
    """Per-instance verdicts from a calls table (instance_id, order, call, choice, ...)."""
    rows = []
    for instance_id, group in calls.groupby("instance_id", sort=False):
        choices = [None if pd.isna(c) else int(c) for c in group["choice"]]
        if format == "pointwise":
            verdict = aggregate_pointwise(choices)
        else:
            verdict = aggregate_pairwise(zip(group["order"].astype(int), choices))
        rows.append(
            {
                "instance_id": instance_id,
                "verdict": verdict,
                "n_calls": len(group),
                "n_failed": sum(c is None for c in choices),
                "input_tokens": int(group["input_tokens"].sum()),
                "output_tokens": int(group["output_tokens"].sum()),
                "cost_usd": float(group["cost_usd"].sum()),
            }
        )
    return pd.DataFrame(rows)
