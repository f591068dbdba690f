"""The statistics of a judge's stability card: quality with BCa intervals, order-swap consistency,
resampling stability, unparseable answers, each change's paired-bootstrap delta and flip rate, and
the cost per 100 decisions.

Inputs are the tables every judge writes: a cell's calls (``instance_id``, ``order``, ``call``,
``choice``, ``failed``: ``noveval.judges.verdicts.calls_from_responses``) and its verdicts
(``instance_id``, ``label``, ``verdict``, ``cost_usd``, ``latency_s``: ``VERDICT_COLUMNS``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from noveval.core.bootstrap import bootstrap
from noveval.judges.statistics.aggregation import TIE, idea_vote
from noveval.judges.statistics.measures import flip_rate, macro_f1, paired_bootstrap

# The headline measures of each format (the first is the one a change's delta is read on).
MEASURES = {
    "pointwise": ("macro_f1", "accuracy"),
    "pairwise": ("strict_accuracy", "soft_accuracy"),
}


def _measure(name: str, labels: np.ndarray, verdicts: np.ndarray, axis: int = -1) -> np.ndarray:
    correct = verdicts == labels
    if name == "macro_f1":
        return macro_f1(labels, verdicts, axis)
    if name == "soft_accuracy":
        return np.mean(correct + 0.5 * (verdicts == TIE), axis=axis)
    return np.mean(correct, axis=axis)  # accuracy, strict_accuracy: a tie is wrong


def quality(
    format: str, labels, verdicts, resamples: int = 10000, seed: int = 42, level: float = 0.95
) -> dict:
    """Each headline measure of ``format`` with its BCa interval (scipy's bootstrap over
    instances), and the tie rate. An interval the bootstrap cannot give (too few instances, a
    measure every resample repeats) is NaN."""
    labels, verdicts = np.asarray(labels), np.asarray(verdicts)
    row = {"instances": len(labels), "tie_rate": float(np.mean(verdicts == TIE))}
    for name in MEASURES[format]:
        value = float(_measure(name, labels, verdicts)) if len(labels) else float("nan")
        low = high = float("nan")
        if len(labels) >= 2:
            result = bootstrap(
                (labels, verdicts),
                lambda y, v, axis=-1, name=name: _measure(name, y, v, axis),
                resamples,
                seed,
                level,
                method="BCa",
                paired=True,
            )
            low, high = (float(v) for v in result.confidence_interval)
        row |= {
            name: value,
            f"{name}_low": low if np.isfinite(low) else float("nan"),
            f"{name}_high": high if np.isfinite(high) else float("nan"),
        }
    return row


def order_swap_consistency(calls: pd.DataFrame) -> dict:
    """Pairwise: the share of (instance, call index) whose two presentation orders, both answered,
    choose the same idea (order 1 shows the ideas swapped); ``compared``: how many had both."""
    parsed = calls[calls["choice"].notna()]
    ideas = parsed.assign(
        idea=[idea_vote(int(o), int(c)) for o, c in zip(parsed["order"], parsed["choice"])]
    )
    wide = ideas.pivot_table(index=["instance_id", "call"], columns="order", values="idea")
    both = wide.dropna() if {0, 1} <= set(wide.columns) else wide.iloc[0:0]
    compared = len(both)
    same = int((both[0] == both[1]).sum()) if compared else 0
    return {
        "order_consistency": same / compared if compared else float("nan"),
        "order_compared": compared,
    }


def resampling_stability(calls: pd.DataFrame) -> dict:
    """Repeated calls of one prompt (an instance in one order): the share of those with two or
    more answers whose answers differ (``resample_changed``), its complement
    (``resample_stability``) and how many were compared; NaN with one call per decision."""
    parsed = calls[calls["choice"].notna()]
    groups = parsed.groupby(["instance_id", "order"])["choice"]
    counts, distinct = groups.size(), groups.nunique()
    compared = int((counts >= 2).sum())
    changed = int(((counts >= 2) & (distinct > 1)).sum())
    rate = changed / compared if compared else float("nan")
    return {
        "resample_changed": rate,
        "resample_stability": 1 - rate if compared else float("nan"),
        "resample_compared": compared,
    }


def unparseable(calls: pd.DataFrame) -> dict:
    """Answers the rule could not read (or calls that failed): their count and share."""
    count = int(calls["failed"].sum())
    return {"unparseable": count, "unparseable_rate": count / len(calls) if len(calls) else 0.0}


def change_delta(
    format: str,
    reference: pd.DataFrame,
    changed: pd.DataFrame,
    resamples: int = 10000,
    seed: int = 42,
    method: str = "BCa",
) -> dict:
    """A change against the judge's own reference, on the instances both judged: the paired
    bootstrap of the headline measure (``noveval.judges.statistics.measures.paired_bootstrap``), its
    significance mark (``*``: a reliable interval that excludes 0) and the flip rate."""
    merged = reference.merge(changed, on="instance_id", suffixes=("_ref", "_new"))
    labels = merged["label_ref"].to_numpy()
    ref, new = merged["verdict_ref"].to_numpy(), merged["verdict_new"].to_numpy()
    delta = paired_bootstrap(format, labels, ref, new, resamples, seed, method=method)
    return {
        "delta": delta["difference"],
        "delta_low": delta["ci_low"],
        "delta_high": delta["ci_high"],
        "significant": delta["significant"],
        "mark": "*" if delta["significant"] else "",
        "flip_rate": flip_rate(ref, new) if len(merged) else float("nan"),
        "paired": len(merged),
    }


def cost_per_100(verdicts: pd.DataFrame) -> dict:
    """The cost of 100 decisions: API dollars (``cost_usd``) and compute hours (``latency_s``)."""
    decisions = len(verdicts)
    if not decisions:
        return {"usd_per_100": float("nan"), "hours_per_100": float("nan")}
    latency = verdicts["latency_s"] if "latency_s" in verdicts else pd.Series(0.0)
    return {
        "usd_per_100": 100 * float(verdicts["cost_usd"].sum()) / decisions,
        "hours_per_100": 100 * float(latency.sum()) / 3600 / decisions,
    }


def reading(judge: str, deltas: pd.DataFrame) -> str:
    """One plain-language line: which changes move the judge, by how much (``deltas``: rows of
    ``change``, ``setup``, ``measure``, ``delta``, ``significant``, ``flip_rate``)."""
    moved = deltas[deltas["significant"]].copy()
    if moved.empty:
        if deltas.empty:
            return f"{judge}: no change was measured."
        most = deltas.loc[deltas["flip_rate"].idxmax()]
        return (
            f"{judge}: no change moves it significantly; the most verdicts flip under "
            f"{most['change']} ({most['flip_rate']:.0%} on {most['setup']})."
        )
    moved = moved.reindex(moved["delta"].abs().sort_values(ascending=False).index)
    parts = [
        f"{row.change} {row.delta:+.2f} {row.measure} on {row.setup} ({row.flip_rate:.0%} flip)"
        for row in moved.itertuples()
    ]
    return f"{judge} is moved by " + "; ".join(parts) + "."
