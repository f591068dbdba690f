"""Votes of repeated judge calls → one verdict per instance.

Pointwise: the majority of the calls' 0/1 votes. Pairwise: calls in both presentation orders,
each vote mapped back to the idea it names; the idea with more votes wins, an even split is a tie
(``TIE``). Two rules are settings (``Rules``): a pointwise even split is a tie or "not novel" (the
authors'), and an instance whose every call failed is a tie or ``FAILED`` (wrong in every metric,
the authors' figures).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

TIE = -1
FAILED = -2


@dataclass(frozen=True)
class Rules:
    """``even_split``: 'tie' or 'not_novel' (pointwise); ``all_failed``: 'tie' or 'wrong'."""

    even_split: str = "tie"
    all_failed: str = "tie"


def majority(votes: Iterable[int | None], even: int = TIE, none: int = TIE) -> int:
    """The 0/1 value voted more often; ``even`` on an even split, ``none`` when all failed."""
    valid = [v for v in votes if v is not None]
    if not valid:
        return none
    ones = sum(valid)
    zeros = len(valid) - ones
    return 1 if ones > zeros else 0 if zeros > ones else even


def idea_vote(order: int, choice: int | None) -> int | None:
    """The release index of the idea a pairwise call chose (order 1 shows the ideas swapped)."""
    if choice is None:
        return None
    return choice if order == 0 else 1 - choice


def _none(rules: Rules) -> int:
    return FAILED if rules.all_failed == "wrong" else TIE


def aggregate_pointwise(votes: Iterable[int | None], rules: Rules = Rules()) -> int:
    """Pointwise verdict from the calls' votes."""
    even = 0 if rules.even_split == "not_novel" else TIE
    return majority(votes, even, _none(rules))


def aggregate_pairwise(votes: Iterable[tuple[int, int | None]], rules: Rules = Rules()) -> int:
    """Pairwise verdict (index of the winning idea, or ``TIE``) from ``(order, choice)`` votes."""
    return majority((idea_vote(order, choice) for order, choice in votes), TIE, _none(rules))


def sub_runs(calls: pd.DataFrame, runs: int | None) -> pd.DataFrame:
    """The no-aggregation configuration: call ``r`` of each instance and order is run ``r``.

    ``runs=None`` keeps call 0 only: one draw, the authors' published row (every metric and its
    significance come from it). Otherwise calls ``0 … runs-1`` each make a single-call run:
    the authors' three-sub-run merge, whose metrics are the mean of the runs'.
    """
    kept = calls[calls["call"] < (runs or 1)].copy()
    kept["run"] = kept["call"]
    return kept


def aggregate(calls: pd.DataFrame, format: str, rules: Rules = Rules()) -> pd.DataFrame:
    """Per-instance verdicts (per ``run`` where the calls carry one) from a calls table."""
    calls = calls if "run" in calls else calls.assign(run=0)
    rows = []
    for (run, instance_id), group in calls.groupby(["run", "instance_id"], sort=False):
        choices = [None if pd.isna(c) else int(c) for c in group["choice"]]
        if format == "pointwise":
            verdict = aggregate_pointwise(choices, rules)
        else:
            verdict = aggregate_pairwise(zip(group["order"].astype(int), choices), rules)
        rows.append(
            {
                "instance_id": instance_id,
                "run": int(run),
                "verdict": verdict,
                "n_calls": len(group),
                "n_failed": sum(c is None for c in choices),
                "input_tokens": int(group["input_tokens"].sum()),
                "output_tokens": int(group["output_tokens"].sum()),
                "cost_usd": float(group["cost_usd"].sum()),
                **_call_totals(group),
            }
        )
    return pd.DataFrame(rows)


def _call_totals(group: pd.DataFrame) -> dict:
    """Cache tokens, batch calls, latency and web searches of a group of calls (zero where not
    recorded)."""
    return {
        "cached_input_tokens": int(group.get("cached_input_tokens", pd.Series(0)).sum()),
        "cache_creation_tokens": int(group.get("cache_creation_tokens", pd.Series(0)).sum()),
        "batch_calls": int(group.get("batch", pd.Series(False)).astype(bool).sum()),
        "latency_s": float(group.get("latency_s", pd.Series(0.0)).sum()),
        "web_searches": int(group.get("web_searches", pd.Series(0)).sum()),
    }
