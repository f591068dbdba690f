"""Bootstrap uncertainty of NovBench means over papers (neither paper reports any).

Every table cell (model × strategy × perturbation, and the human row) gets a 95% percentile
interval of its mean over papers; paired tests resample papers: strategies of the same model and
perturbation, and each perturbation against ``none`` of the same model and strategy. A failed
call has NaN metrics and is left out, as in the table's means.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from noveval.core.bootstrap import bootstrap
from noveval.core.markdown import markdown_table
from noveval.novbench.tables import HUMAN, KEYS, METRICS

CONFIDENCE = 0.95
RESAMPLES = 9999
SEED = 2025
BASELINE = "none"
STRATEGY_ORDER = ["zero", "few", "rag"]


def _mean_difference(first, second, axis=-1):
    return np.mean(second - first, axis=axis)


def _interval(samples: tuple[np.ndarray, ...], statistic, paired: bool) -> tuple[float, float]:
    """Percentile interval; a single value (or constant data) gives a degenerate one."""
    if len(samples[0]) < 2:
        value = float(statistic(*samples, axis=-1))
        return value, value
    result = bootstrap(samples, statistic, RESAMPLES, SEED, CONFIDENCE, paired=paired)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def cell_intervals(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per cell × metric: mean over papers, 95% interval, papers counted."""
    rows = []
    for key, group in scores.groupby(KEYS, sort=False):
        for metric in METRICS:
            values = group[metric].dropna().to_numpy(dtype=float)
            if len(values) == 0:
                continue
            low, high = _interval((values,), np.mean, paired=False)
            rows.append(
                dict(zip(KEYS, key, strict=True))
                | {
                    "metric": metric,
                    "mean": float(values.mean()),
                    "ci_low": low,
                    "ci_high": high,
                    "n": len(values),
                }
            )
    return pd.DataFrame(rows, columns=[*KEYS, "metric", "mean", "ci_low", "ci_high", "n"])


def paired_test(first: pd.DataFrame, second: pd.DataFrame, metric: str) -> dict:
    """Mean of ``second − first`` over the papers both scored, its interval and significance."""
    both = first.merge(second, on="paper_id", suffixes=("_a", "_b"))[
        [f"{metric}_a", f"{metric}_b"]
    ].dropna()
    a, b = both[f"{metric}_a"].to_numpy(float), both[f"{metric}_b"].to_numpy(float)
    if len(both) == 0:
        return {"difference": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": 0}
    low, high = _interval((a, b), _mean_difference, paired=True)
    return {
        "difference": float(np.mean(b - a)),
        "ci_low": low,
        "ci_high": high,
        "n": len(both),
        "significant": bool(low > 0 or high < 0),
    }


def _comparisons(scores: pd.DataFrame):
    """(kind, model, fixed, a, b) pairs: strategies within a perturbation, perturbation vs none."""
    models = scores[scores["model"] != HUMAN]
    cells = set(models[KEYS].itertuples(index=False, name=None))
    order = {s: i for i, s in enumerate(STRATEGY_ORDER)}
    strategies = sorted({s for _, s, _ in cells}, key=lambda s: (order.get(s, len(order)), s))
    for model, perturbation in sorted({(m, p) for m, _, p in cells}):
        present = [s for s in strategies if (model, s, perturbation) in cells]
        for a, b in itertools.combinations(present, 2):
            yield (
                "strategy",
                model,
                perturbation,
                (model, a, perturbation),
                (model, b, perturbation),
            )
    for model, strategy, perturbation in sorted(cells):
        if perturbation != BASELINE and (model, strategy, BASELINE) in cells:
            yield (
                "perturbation",
                model,
                strategy,
                (model, strategy, BASELINE),
                (
                    model,
                    strategy,
                    perturbation,
                ),
            )


def paired_tests(scores: pd.DataFrame) -> pd.DataFrame:
    """Paired bootstrap tests between strategies and between perturbations and their baseline."""
    groups = dict(list(scores.groupby(KEYS, sort=False)))
    rows = []
    for kind, model, _, first, second in _comparisons(scores):
        for metric in METRICS:
            rows.append(
                {
                    "comparison": kind,
                    "model": model,
                    "a": "/".join(first[1:]),
                    "b": "/".join(second[1:]),
                    "metric": metric,
                }
                | paired_test(groups[first], groups[second], metric)
            )
    columns = ["comparison", "model", "a", "b", "metric", "difference", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=[*columns, "n", "significant"])


def markdown(scores: pd.DataFrame) -> str:
    """Both tables as Markdown, rounded to 3 decimals, with how they were computed."""
    intervals = cell_intervals(scores).round(3)
    intervals["interval"] = intervals.apply(lambda r: f"[{r.ci_low:.3f}, {r.ci_high:.3f}]", axis=1)
    wide = intervals.pivot_table(
        index=KEYS, columns="metric", values="interval", aggfunc="first", sort=False
    ).reset_index()
    parts = [
        f"### {CONFIDENCE:.0%} bootstrap intervals of the means over papers "
        f"(percentile, {RESAMPLES} resamples, seed {SEED})",
        markdown_table(wide[[*KEYS, *(m for m in METRICS if m in wide)]]),
    ]
    tests = paired_tests(scores)
    if len(tests):
        parts += [
            "### Paired bootstrap tests over papers (difference = b − a; significant when the "
            f"{CONFIDENCE:.0%} interval excludes 0)",
            markdown_table(tests.round(3)),
        ]
    return "\n\n".join(parts) + "\n"
