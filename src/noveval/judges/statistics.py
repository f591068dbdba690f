"""Judge statistics: pointwise F1, pairwise accuracies and ties, flip rates, paired bootstrap."""

from __future__ import annotations

import numpy as np
from scipy.stats import bootstrap
from sklearn.metrics import precision_recall_fscore_support

from noveval.judges.aggregation import FAILED, TIE

CLASSES = {"novel": 1, "not_novel": 0}


def pointwise_metrics(labels, verdicts) -> dict:
    """Precision, recall and F1 per class and macro-F1; a tie or a failed instance is wrong."""
    labels, verdicts = np.asarray(labels), np.asarray(verdicts)
    precision, recall, f1, support = precision_recall_fscore_support(
        labels, verdicts, labels=list(CLASSES.values()), zero_division=0
    )
    metrics = {
        "macro_f1": float(np.mean(f1)),
        "tie_rate": float(np.mean(verdicts == TIE)),
        "failed_rate": float(np.mean(verdicts == FAILED)),
    }
    for i, name in enumerate(CLASSES):
        metrics |= {
            f"precision_{name}": float(precision[i]),
            f"recall_{name}": float(recall[i]),
            f"f1_{name}": float(f1[i]),
            f"support_{name}": int(support[i]),
        }
    return metrics


def pairwise_metrics(expected, verdicts) -> dict:
    """Soft accuracy (tie = 0.5), strict accuracy (tie = 0), accuracy without ties, tie rate.

    A ``FAILED`` instance (every call failed, under the authors' rule) is wrong in all three."""
    expected, verdicts = np.asarray(expected), np.asarray(verdicts)
    ties = verdicts == TIE
    correct = verdicts == expected
    decided = int((~ties).sum())
    return {
        "soft_accuracy": float(np.mean(correct + 0.5 * ties)),
        "strict_accuracy": float(np.mean(correct)),
        "accuracy_without_ties": float(correct[~ties].mean()) if decided else float("nan"),
        "tie_rate": float(np.mean(ties)),
        "failed_rate": float(np.mean(verdicts == FAILED)),
    }


def flip_rate(verdicts_a, verdicts_b) -> float:
    """Share of instances whose aggregated verdict (0 / 1 / tie) differs between two configs."""
    a, b = np.asarray(verdicts_a), np.asarray(verdicts_b)
    return float(np.mean(a != b))


def macro_f1(labels: np.ndarray, verdicts: np.ndarray, axis: int = -1) -> np.ndarray:
    """Macro-F1 over the two classes along ``axis`` (vectorised for the bootstrap)."""
    scores = []
    for cls in CLASSES.values():
        true_pos = np.sum((verdicts == cls) & (labels == cls), axis=axis)
        predicted = np.sum(verdicts == cls, axis=axis)
        actual = np.sum(labels == cls, axis=axis)
        denominator = predicted + actual
        scores.append(np.where(denominator > 0, 2 * true_pos / np.maximum(denominator, 1), 0.0))
    return np.mean(scores, axis=0)


def quality(format: str, labels, verdicts) -> float:
    """The headline number: macro-F1 (pointwise) or strict accuracy (pairwise).

    ``verdicts`` may hold several runs (runs × instances): their mean is the quality.
    """
    labels, verdicts = np.asarray(labels), np.atleast_2d(verdicts)
    if format == "pointwise":
        return float(np.mean(macro_f1(labels, verdicts)))
    return float(np.mean(verdicts == labels))


def paired_bootstrap(
    format: str,
    labels,
    reference,
    verdicts,
    resamples: int,
    seed: int,
    level: float = 0.95,
    method: str = "percentile",
) -> dict:
    """Paired bootstrap over instances of quality(verdicts) − quality(reference).

    ``reference`` and ``verdicts`` are one run or several (runs × instances; the mean of the runs'
    qualities). Two-sided interval by ``method`` (scipy's 'percentile' or 'BCa');
    significant when it excludes 0. An interval that cannot be estimated (BCa on a degenerate
    resampling distribution gives NaN) is not reliable and never significant.
    """
    labels = np.asarray(labels)
    reference, verdicts = np.atleast_2d(reference), np.atleast_2d(verdicts)
    difference = quality(format, labels, verdicts) - quality(format, labels, reference)
    if len(labels) < 2 or np.array_equal(reference, verdicts):
        low = high = difference if len(labels) else float("nan")
    else:
        split = len(reference)

        def score(y, runs, axis):
            if format == "pointwise":
                return np.mean([macro_f1(y, run, axis) for run in runs], axis=0)
            return np.mean([np.mean(run == y, axis=axis) for run in runs], axis=0)

        def statistic(y, *runs, axis=-1):
            return score(y, runs[split:], axis) - score(y, runs[:split], axis)

        result = bootstrap(
            (labels, *reference, *verdicts),
            statistic,
            n_resamples=resamples,
            paired=True,
            vectorized=True,
            confidence_level=level,
            method=method,
            rng=np.random.default_rng(seed),
        )
        low, high = (float(v) for v in result.confidence_interval)
    reliable = bool(np.isfinite(low) and np.isfinite(high))
    return {
        "difference": float(difference),
        "ci_low": low,
        "ci_high": high,
        "reliable": reliable,
        "significant": bool(reliable and (low > 0 or high < 0)),
    }
