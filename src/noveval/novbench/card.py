"""The statistics of a NovBench card (a custom evaluator, config ``novbench.custom``): the four
metrics' means with bootstrap intervals over papers, the nearest published model, and the test
against it.

Inputs are the per-paper scores every cell writes (``noveval.novbench.scoring.SCORE_COLUMNS``;
a failed call has NaN metrics and is left out, as in the table's means) and the published rows
of Table 2 (``published_rows``: one row per model and strategy, the four metrics as columns).

- Intervals: the 95% percentile bootstrap of the mean over papers (``scipy.stats.bootstrap``),
  with the resamples and seed of the dataset table's intervals (``noveval.novbench.uncertainty``).
- Nearest published model: the Table 2 row (model, strategy) at the smallest distance from the
  evaluator's four means, each metric's difference divided by that metric's standard deviation
  across Table 2's model rows (the human row left out), so Relevance (1-5) weighs as much as the
  fractions.
- Paired test: the two-sided Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, exact for small
  samples, zero differences dropped) of the per-paper differences evaluator - other cell, on the
  papers both scored; significant when p < ``ALPHA``.
- Unpaired fallback (a published model this run did not score has no per-paper scores): whether
  the published value lies inside the evaluator's interval.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from noveval.core.bootstrap import bootstrap
from noveval.novbench.tables import HUMAN, METRICS
from noveval.novbench.uncertainty import CONFIDENCE, RESAMPLES, SEED

ALPHA = 0.05
TABLE = "2"
UNPAIRED = "unpaired: published value"
PAIRED = "paired: Wilcoxon signed-rank"
LABELS = {
    "relevance": "Relevance",
    "coverage": "Coverage",
    "clarity": "Clarity",
    "dist_acc": "DistAcc",
}


def mean_interval(values, resamples: int = RESAMPLES, seed: int = SEED) -> dict:
    """The mean over papers of one metric, its 95% percentile bootstrap interval and the papers
    counted (NaN values left out; one paper, or constant values, give a degenerate interval)."""
    data = pd.Series(values, dtype=float).dropna().to_numpy()
    if len(data) == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "n": 0}
    mean = float(data.mean())
    if len(data) < 2 or np.all(data == data[0]):
        return {"mean": mean, "low": mean, "high": mean, "n": len(data)}
    result = bootstrap((data,), np.mean, resamples, seed, CONFIDENCE)
    low, high = result.confidence_interval
    return {"mean": mean, "low": float(low), "high": float(high), "n": len(data)}


def cell_statistics(scores: pd.DataFrame, resamples: int = RESAMPLES, seed: int = SEED) -> dict:
    """One cell's four metrics (``<metric>``, ``<metric>_low``, ``<metric>_high``), its papers,
    and its outputs the parse rules could not read or whose call failed."""
    row = {"papers": int(scores["paper_id"].nunique())}
    for metric in METRICS:
        found = mean_interval(scores[metric], resamples, seed)
        row[metric] = found["mean"]
        row |= {f"{metric}_low": found["low"], f"{metric}_high": found["high"]}
    row["unparseable"] = int(scores["unparseable"].sum()) if "unparseable" in scores else 0
    row["failed"] = int(scores["failed"].sum()) if "failed" in scores else 0
    return row


def published_rows(published: pd.DataFrame, table: str = TABLE) -> pd.DataFrame:
    """The model rows of a published table (the project's reference table of NovBench,
    ``noveval.core.published``): one row per dataset, model, strategy and perturbation,
    the four metrics as columns (the human row left out)."""
    keys = ["dataset", "model", "strategy", "perturbation"]
    rows = published[
        (published["table"] == table)
        & (published["model"] != HUMAN)
        & published["metric"].isin(METRICS)
    ].assign(value=lambda f: pd.to_numeric(f["paper_value"], errors="coerce"))
    if rows.empty:
        return pd.DataFrame(columns=[*keys, *METRICS])
    wide = rows.pivot_table(index=keys, columns="metric", values="value", aggfunc="first")
    wide = wide.reindex(columns=METRICS).dropna().reset_index()
    wide.columns.name = None
    return wide[[*keys, *METRICS]]


def metric_scales(rows: pd.DataFrame) -> dict[str, float]:
    """Each metric's standard deviation across the published rows (1 where it cannot be had)."""
    scales = {}
    for metric in METRICS:
        spread = float(rows[metric].std(ddof=1)) if len(rows) >= 2 else math.nan
        scales[metric] = spread if np.isfinite(spread) and spread > 0 else 1.0
    return scales


def distance(means: dict, row, scales: dict[str, float]) -> float:
    """The distance between two cells on the four metrics, each difference in units of its
    metric's spread (``scales``)."""
    return math.sqrt(sum(((means[m] - float(row[m])) / scales[m]) ** 2 for m in METRICS))


def nearest(means: dict, rows: pd.DataFrame, scales: dict[str, float]) -> dict | None:
    """The row of ``rows`` (its fields and ``distance``) nearest to ``means``; None if empty or
    the means are not all known."""
    if rows.empty or any(not np.isfinite(means[m]) for m in METRICS):
        return None
    distances = [distance(means, row, scales) for _, row in rows.iterrows()]
    best = int(np.argmin(distances))
    return rows.iloc[best].to_dict() | {"distance": distances[best]}


def paired_test(mine: pd.DataFrame, other: pd.DataFrame, metric: str) -> dict:
    """The Wilcoxon signed-rank test of ``mine - other`` on the papers both scored: the papers,
    the mean difference, the statistic, the two-sided p-value and whether p < ``ALPHA``. With
    every difference 0 there is nothing to rank: p is 1."""
    from scipy.stats import wilcoxon

    both = mine[["paper_id", metric]].merge(
        other[["paper_id", metric]], on="paper_id", suffixes=("_mine", "_other")
    )
    both = both.dropna()
    differences = (both[f"{metric}_mine"] - both[f"{metric}_other"]).to_numpy(float)
    row = {"n": len(differences), "difference": math.nan, "statistic": math.nan}
    row |= {"p_value": math.nan, "significant": False}
    if len(differences) == 0:
        return row
    row["difference"] = float(differences.mean())
    if np.all(differences == 0):
        return row | {"statistic": 0.0, "p_value": 1.0}
    result = wilcoxon(differences, alternative="two-sided")
    p = float(result.pvalue)
    return row | {"statistic": float(result.statistic), "p_value": p, "significant": p < ALPHA}


def inside(value: float, low: float, high: float) -> bool:
    """Whether a published value lies inside the evaluator's interval (bounds included)."""
    return bool(low <= value <= high)


def reading(name: str, sections: pd.DataFrame, tests: pd.DataFrame) -> str:
    """One plain-language line: per dataset and perturbation, the nearest published model and
    what the test against a model says."""
    if sections.empty:
        return f"{name}: no cell was scored."
    parts = []
    for _, section in sections.iterrows():
        where = f"{section['dataset']}/{section['perturbation']}"
        near = (
            f"closest to the published {section['nearest_model']} {section['nearest_strategy']}"
            if isinstance(section.get("nearest_model"), str)
            else "no published row to compare"
        )
        mine = tests[
            (tests["dataset"] == section["dataset"])
            & (tests["perturbation"] == section["perturbation"])
        ]
        parts.append(f"on {where} {near}; {_verdict(mine)}")
    return f"{name}: " + "; ".join(parts) + "."


def _verdict(tests: pd.DataFrame) -> str:
    paired = tests[tests["kind"] == PAIRED]
    if not paired.empty:
        against = paired.iloc[0]["against"]
        moved = paired[paired["significant"]]
        if moved.empty:
            return f"no significant difference from {against} run here"
        words = [
            f"{'higher' if row.difference > 0 else 'lower'} {LABELS[row.metric]} "
            f"(p={row.p_value:.3f})"
            for row in moved.itertuples()
        ]
        return f"against {against} run here: " + ", ".join(words)
    unpaired = tests[tests["kind"] == UNPAIRED]
    if unpaired.empty:
        return "no model to test against"
    within = unpaired[unpaired["inside"].astype(bool)]
    return (
        f"{unpaired.iloc[0]['against']} was not run here; its published value lies inside the "
        f"interval on {len(within)} of {len(unpaired)} metrics"
    )
