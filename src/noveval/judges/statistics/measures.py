"""Judge statistics: pointwise F1, pairwise accuracies and ties, flip rates, paired bootstrap.

scikit-learn and scipy are imported by the functions that use them: most of the judges' workflow
steps import this module through the tables and never compute a statistic, and the two take a
second and a half to import at every step's start.
"""

from __future__ import annotations

import numpy as np

from noveval.core.bootstrap import bootstrap
from noveval.judges.statistics.aggregation import FAILED, TIE

CLASSES = {"novel": 1, "not_novel": 0}


def pointwise_metrics(labels, verdicts) -> dict:
    """Precision, recall and F1 per class and macro-F1; a tie or a failed instance is wrong."""
    from sklearn.metrics import precision_recall_fscore_support

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
    """Macro-F1 over the two classes along ``axis`` (vectorised for the bootstrap).

    The authors' arithmetic step by step (precision, recall, then 2PR/(P+R), then the mean of
    the novel and not-novel F1), so a bootstrap statistic equals theirs to the last bit; a
    verdict of neither class (tie, failed) is a miss for its label's class.
    """
    scores = []
    for cls in (CLASSES["novel"], CLASSES["not_novel"]):
        true_pos = np.sum((verdicts == cls) & (labels == cls), axis=axis)
        predicted = np.sum(verdicts == cls, axis=axis)
        actual = np.sum(labels == cls, axis=axis)
        precision = np.where(predicted > 0, true_pos / np.maximum(predicted, 1), 0.0)
        recall = np.where(actual > 0, true_pos / np.maximum(actual, 1), 0.0)
        total = precision + recall
        scores.append(
            np.where(total > 0, 2 * precision * recall / np.where(total > 0, total, 1), 0.0)
        )
    return (scores[0] + scores[1]) / 2


def quality(format: str, labels, verdicts) -> float:
    """The headline number: macro-F1 (pointwise) or strict accuracy (pairwise).

    ``verdicts`` may hold several runs (runs × instances): their mean is the quality.
    """
    labels, verdicts = np.asarray(labels), np.atleast_2d(verdicts)
    if format == "pointwise":
        return float(np.mean(macro_f1(labels, verdicts)))
    return float(np.mean(verdicts == labels))


def instance_outcomes(format: str, labels, runs) -> np.ndarray:
    """Per-instance outcomes the authors' bootstrap resamples (their ``artifacts.py``).

    Each run's outcome is averaged over the runs before the bootstrap sees it. Pairwise: 1 for a
    correct verdict, 0 for a wrong one, a tie or a failure. Pointwise: the 0/1 prediction, a
    run without one (tie, failure) left out of the mean, and an instance no run predicts counted
    as the wrong class (``1 - label``); the bootstrap thresholds the mean at 0.5.
    """
    labels, runs = np.asarray(labels), np.atleast_2d(runs)
    if format == "pairwise":
        return np.mean(runs == labels, axis=0)
    decided = (runs == 0) | (runs == 1)
    count = decided.sum(axis=0)
    mean = np.where(decided, runs, 0).sum(axis=0) / np.maximum(count, 1)
    return np.where(count > 0, mean, 1 - labels)


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
    """Paired bootstrap over instances of quality(verdicts) − quality(reference), as the authors
    ran it (``analysis/stats_one_pass.py``).

    ``reference`` and ``verdicts`` are one run or several (runs × instances); the bootstrap
    resamples the per-instance outcomes of ``instance_outcomes``. Two-sided interval by
    ``method`` (scipy's 'percentile' or 'BCa', theirs) from scipy's bootstrap with
    ``numpy.random.default_rng(seed)``. Their reliability rule: an interval is reliable when
    both bounds are finite and the bootstrap distribution has non-zero variance (a delta every
    resample repeats, such as two identical runs, is unreliable); only a reliable interval that
    excludes 0 is significant. An interval that is not finite is reported as NaN (their None).
    ``difference`` is the point difference of ``quality`` (the mean of the runs' metrics).
    """
    labels = np.asarray(labels)
    reference, verdicts = np.atleast_2d(reference), np.atleast_2d(verdicts)
    difference = quality(format, labels, verdicts) - quality(format, labels, reference)
    if len(labels) < 2:  # nothing to resample
        return {
            "difference": float(difference) if len(labels) else float("nan"),
            "ci_low": float("nan"),
            "ci_high": float("nan"),
            "reliable": False,
            "significant": False,
        }
    ref = instance_outcomes(format, labels, reference)
    new = instance_outcomes(format, labels, verdicts)

    def statistic(y, ref, new, axis=-1):
        if format == "pointwise":
            return macro_f1(y, new >= 0.5, axis) - macro_f1(y, ref >= 0.5, axis)
        return np.mean(new, axis=axis) - np.mean(ref, axis=axis)

    result = bootstrap((labels, ref, new), statistic, resamples, seed, level, method, paired=True)
    low, high = (float(v) for v in result.confidence_interval)
    finite = bool(np.isfinite(low) and np.isfinite(high))
    reliable = finite and float(np.std(result.bootstrap_distribution)) != 0.0
    return {
        "difference": float(difference),
        "ci_low": low if np.isfinite(low) else float("nan"),
        "ci_high": high if np.isfinite(high) else float("nan"),
        "reliable": reliable,
        "significant": bool(reliable and (low > 0 or high < 0)),
    }
