"""Verdict parsing, aggregation and every statistic on hand-made verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from noveval.judges import figures
from noveval.judges.aggregation import (
    TIE,
    aggregate,
    aggregate_pairwise,
    aggregate_pointwise,
    sub_runs,
)
from noveval.judges.statistics import (
    flip_rate,
    macro_f1,
    paired_bootstrap,
    pairwise_metrics,
    pointwise_metrics,
)
from noveval.judges.summary import metrics_table
from noveval.judges.tables import ideation_table
from noveval.judges.verdicts import calls_from_responses, parse_verdict


@pytest.mark.parametrize(
    ("text", "format", "expected"),
    [
        ('{"reasoning": "new", "novelty": 1}', "pointwise", 1),
        ('Reasoning... {"novelty": "0"}', "pointwise", 0),
        ('<think>{"novelty": 1}</think> final: {"novelty": 0}', "pointwise", 0),
        ("novelty: yes", "pointwise", 1),
        ('{"more_novel": 2}', "pairwise", 1),
        ('```json\n{"reasoning": "x", "more_novel": "Idea 1"}\n```', "pairwise", 0),
        ('{"reasoning": "cut short', "pairwise", None),
        ('{"more_novel": 3}', "pairwise", None),
        ("", "pointwise", None),
        (None, "pairwise", None),
    ],
)
def test_parse_verdict_is_tolerant_and_never_raises(text, format, expected):
    assert parse_verdict(text, format) == expected


def test_pointwise_majority_and_even_split():
    assert aggregate_pointwise([1, 1, 0]) == 1
    assert aggregate_pointwise([0, None, 0]) == 0
    assert aggregate_pointwise([1, 0, None]) == TIE  # one call failed: an even split
    assert aggregate_pointwise([None, None, None]) == TIE


def test_pairwise_votes_map_back_through_the_order():
    # order 1 shows the ideas swapped: choosing shown index 1 there is a vote for idea 0
    assert aggregate_pairwise([(0, 0), (0, 0), (0, 0), (1, 1), (1, 1), (1, 1)]) == 0
    # pure position bias (always "the first shown") is a tie
    assert aggregate_pairwise([(0, 0), (0, 0), (0, 0), (1, 0), (1, 0), (1, 0)]) == TIE
    assert aggregate_pairwise([(0, 1), (0, 1), (0, 0), (1, 0), (1, 0), (1, 1)]) == 1
    assert aggregate_pairwise([(0, None)] * 3 + [(1, None)] * 3) == TIE  # all calls failed
    assert aggregate_pairwise([(0, None), (0, None), (0, 1), (1, None), (1, None), (1, 1)]) == TIE


def test_aggregate_table_and_first_calls():
    calls = pd.DataFrame(
        {
            "instance_id": ["a"] * 6,
            "order": [0, 0, 0, 1, 1, 1],
            "call": [0, 1, 2, 0, 1, 2],
            "choice": pd.array([0, 1, 1, 1, 0, 0], dtype="Int64"),
            "input_tokens": 10,
            "output_tokens": 2,
            "cost_usd": 0.5,
        }
    )
    full = aggregate(calls, "pairwise").iloc[0]
    assert full["verdict"] == 1 and full["n_calls"] == 6 and full["cost_usd"] == 3.0
    first = aggregate(sub_runs(calls, None), "pairwise").iloc[0]
    assert first["verdict"] == 0 and first["n_calls"] == 2  # votes (0,0)→0 and (1,1)→0


def test_pairwise_metrics_by_hand():
    expected = [0, 1, 0, 1]
    verdicts = [0, 0, TIE, 1]
    metrics = pairwise_metrics(expected, verdicts)
    assert metrics["strict_accuracy"] == 0.5
    assert metrics["soft_accuracy"] == 0.625
    assert metrics["accuracy_without_ties"] == pytest.approx(2 / 3)
    assert metrics["tie_rate"] == 0.25


def test_pointwise_metrics_by_hand():
    labels = [1, 1, 1, 0, 0, 0]
    verdicts = [1, 1, 0, 0, 1, TIE]
    metrics = pointwise_metrics(labels, verdicts)
    assert metrics["precision_novel"] == pytest.approx(2 / 3)
    assert metrics["recall_novel"] == pytest.approx(2 / 3)
    assert metrics["precision_not_novel"] == pytest.approx(1 / 2)
    assert metrics["recall_not_novel"] == pytest.approx(1 / 3)  # the tie counts as a miss
    f1_not = 2 * 0.5 * (1 / 3) / (0.5 + 1 / 3)
    assert metrics["macro_f1"] == pytest.approx((2 / 3 + f1_not) / 2)
    assert metrics["tie_rate"] == pytest.approx(1 / 6)


def test_vectorised_macro_f1_matches_scikit_learn():
    rng = np.random.default_rng(0)
    for _ in range(50):
        labels = rng.integers(0, 2, 40)
        verdicts = rng.choice([0, 1, TIE], 40)
        expected = f1_score(labels, verdicts, labels=[1, 0], average="macro", zero_division=0)
        assert macro_f1(labels, verdicts) == pytest.approx(expected)


def test_flip_rate_bounds_the_accuracy_difference():
    """Two configs whose strict accuracies differ by d points disagree on at least d% of pairs."""
    rng = np.random.default_rng(1)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        expected = rng.integers(0, 2, n)
        a, b = rng.choice([0, 1, TIE], n), rng.choice([0, 1, TIE], n)
        d = abs(
            pairwise_metrics(expected, a)["strict_accuracy"]
            - pairwise_metrics(expected, b)["strict_accuracy"]
        )
        assert flip_rate(a, b) >= d - 1e-12
    assert flip_rate([0, 1, TIE], [0, TIE, 1]) == pytest.approx(2 / 3)


def test_bootstrap_is_deterministic_under_its_seed_and_marks_significance():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 2, 150)
    good = np.where(rng.random(150) < 0.9, labels, 1 - labels)
    bad = np.where(rng.random(150) < 0.5, labels, TIE)
    for format in ("pairwise", "pointwise"):
        first = paired_bootstrap(format, labels, good, bad, resamples=2000, seed=42)
        again = paired_bootstrap(format, labels, good, bad, resamples=2000, seed=42)
        other = paired_bootstrap(format, labels, good, bad, resamples=2000, seed=7)
        assert first == again and first != other
        assert first["difference"] < 0 and first["significant"]
        assert first["ci_low"] <= first["difference"] <= first["ci_high"]
    same = paired_bootstrap("pairwise", labels, good, good, resamples=2000, seed=42)
    assert same == {
        "difference": 0.0,
        "ci_low": 0.0,
        "ci_high": 0.0,
        "reliable": True,
        "significant": False,
    }


def test_metrics_table_compares_each_change_with_its_reference():
    rows = []
    for change, verdicts in {"reference": [0, 1, 0, 1], "P3": [0, 0, TIE, 1]}.items():
        for i, verdict in enumerate(verdicts):
            rows.append(
                {
                    "model": "m",
                    "setup": "s",
                    "change": change,
                    "instance_id": str(i),
                    "label": [0, 1, 0, 1][i],
                    "verdict": verdict,
                    "n_calls": 2,
                    "n_failed": 0,
                    "input_tokens": 5,
                    "output_tokens": 1,
                    "cost_usd": 0.25,
                }
            )
    table = metrics_table(pd.DataFrame(rows), "pairwise", resamples=500, seed=42).set_index(
        "change"
    )
    assert table.loc["reference", "strict_accuracy"] == 1.0
    assert table.loc["reference", "flip_rate"] == 0.0
    assert table.loc["P3", "strict_accuracy"] == 0.5 and table.loc["P3", "flip_rate"] == 0.5
    assert table.loc["P3", "difference"] == -0.5
    assert table.loc["P3", "cost_usd"] == 1.0 and table.loc["P3", "n_calls"] == 8


def test_failed_and_unparseable_calls_are_counted_not_raised():
    responses = pd.DataFrame(
        {
            "request_id": ["a", "b", "c", "d"],
            "item_id": ["7|0|0", "7|1|0", "8|0|0", "8|1|0"],
            "text": ['{"more_novel": 2}', '{"more_novel": 1}', None, "I cannot decide"],
            "error": [None, None, "APITimeoutError: timed out", None],
            "input_tokens": [10, 10, 0, 10],
            "output_tokens": [3, 3, 0, 4],
            "cost_usd": [0.1, 0.1, 0.0, 0.1],
        }
    )
    calls = calls_from_responses(responses, "pairwise")
    assert calls["failed"].tolist() == [False, False, True, True]
    verdicts = aggregate(calls, "pairwise").set_index("instance_id")
    assert verdicts.loc["7", "verdict"] == 1  # (0→idea 1) and swapped (0→idea 1)
    assert verdicts.loc["8", "verdict"] == TIE and verdicts.loc["8", "n_failed"] == 2


def test_ideation_table_reports_the_share_to_the_stronger_and_flips_by_hand():
    metrics = pd.DataFrame(
        {
            "model": ["judge"] * 3,
            "setup": ["ideation-big-vs-small"] * 2 + ["human-only"],
            "change": ["reference", "P3", "reference"],
            "n_instances": [8, 8, 10],
            "strict_accuracy": [6 / 8, 3 / 8, 0.5],
            "soft_accuracy": [6.5 / 8, 4 / 8, 0.5],
            "tie_rate": [1 / 8, 2 / 8, 0.0],
            "flip_rate": [0.0, 4 / 8, 0.0],
            "significant": [False, True, False],
        }
    )
    table = ideation_table(metrics)
    assert (
        len(table) == 2 and set(table["stronger"]) == {"big"} and set(table["weaker"]) == {"small"}
    )
    p3 = table.set_index("change").loc["P3"]
    assert p3["strict_accuracy"] == 3 / 8 and p3["soft_accuracy"] == 4 / 8
    assert p3["flip_rate"] == 4 / 8 and p3["strict_accuracy_difference"] == -3 / 8


def test_judge_figures_draw_from_hand_made_metrics(tmp_path):
    metrics = pd.DataFrame(
        {
            "model": ["a", "a", "b", "a", "a"],
            "setup": ["human-only", "generated-g", "human-only", "ideation-g-vs-h", "human-only"],
            "change": ["reference", "reference", "reference", "reference", "P3"],
            "format": ["pairwise"] * 5,
            "quality": [0.8, 0.4, 0.7, 0.5, 0.6],
            "strict_accuracy": [0.8, 0.4, 0.7, 0.5, 0.6],
            "cost_usd": [1.0, 1.0, 2.0, 1.0, 0.5],
        }
    )
    figures.d_minus_sources(metrics, str(tmp_path / "sources.png"))
    figures.motivation(metrics, str(tmp_path / "motivation.png"), "a", ["reference", "P3"])
    figures.cost_quality(metrics, str(tmp_path / "cost.png"))
    for name in ("sources.png", "motivation.png", "cost.png"):
        assert (tmp_path / name).stat().st_size > 5_000
    table = figures._percent_by(metrics[metrics["change"] == "reference"], "model", "quality")
    assert table.loc["human-only", "b"] == 70.0 and pd.isna(table.loc["generated-g", "b"])
