"""Verdict parsing, aggregation and every statistic on hand-made verdicts."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from conftest import shared_file
from sklearn.metrics import f1_score

from noveval.judges.statistics import figures
from noveval.judges.statistics.aggregation import (
    FAILED,
    TIE,
    aggregate,
    aggregate_pairwise,
    aggregate_pointwise,
    sub_runs,
)
from noveval.judges.statistics.measures import (
    flip_rate,
    instance_outcomes,
    macro_f1,
    paired_bootstrap,
    pairwise_metrics,
    pointwise_metrics,
)
from noveval.judges.statistics.summary import metrics_table
from noveval.judges.statistics.tables import ideation_table
from noveval.judges.verdicts import calls_from_responses, parse_json_verdict


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
def test_parse_json_verdict_is_tolerant_and_never_raises(text, format, expected):
    assert parse_json_verdict(text, format) == expected


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
        assert first["ci_low"] < first["ci_high"] < 0
    # pointwise, the bootstrap counts a tie as the wrong class (theirs), the metric as a miss
    first = paired_bootstrap("pairwise", labels, good, bad, resamples=2000, seed=42)
    assert first["ci_low"] <= first["difference"] <= first["ci_high"]


def test_a_bootstrap_without_variance_is_unreliable_and_never_significant():
    """The authors' rule: a delta every resample repeats has a degenerate interval."""
    labels = np.array([0, 1] * 5)
    same = paired_bootstrap("pairwise", labels, labels, labels, 500, 42, method="BCa")
    assert same["difference"] == 0.0 and not same["reliable"] and not same["significant"]
    assert np.isnan(same["ci_low"]) and np.isnan(same["ci_high"])  # BCa: no finite interval
    # every instance right in the reference, wrong in the change: each resample's delta is -1,
    # an interval [-1, -1] that their rule still reports as unreliable, not as significant
    for method in ("percentile", "BCa"):
        wrong = paired_bootstrap("pairwise", labels, labels, 1 - labels, 500, 42, method=method)
        assert wrong["difference"] == -1.0
        assert not wrong["reliable"] and not wrong["significant"]


def _authors_bootstrap():
    """The authors' analysis/stats_one_pass.py, read from the shared copy of their code."""
    path = shared_file(
        "novelty-eval", "upstream", "src", "novelty_eval", "analysis", "stats_one_pass.py"
    )
    spec = importlib.util.spec_from_file_location("authors_stats_one_pass", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bootstrap_gives_the_authors_interval_and_marks():
    """Hand-made verdicts through their stats_one_pass.py and through ours (BCa, their seed 42):
    the same interval, reliability and significance, for strict accuracy and macro-F1."""
    authors = _authors_bootstrap()
    rng = np.random.default_rng(3)
    n = 40
    for trial in range(3):
        labels = rng.integers(0, 2, n)
        ref = np.where(rng.random(n) < 0.85, labels, 1 - labels)
        new = np.where(rng.random(n) < 0.55 + 0.1 * trial, labels, 1 - labels)
        ref_pairs = np.where(rng.random(n) < 0.1, TIE, ref)
        new_pairs = np.where(rng.random(n) < 0.2, TIE, new)

        def rows(verdicts, labels=labels):
            return [(float(v == y), float(v == TIE), float(y)) for v, y in zip(verdicts, labels)]

        theirs = authors.compute_bootstrap_results_pairwise_all(
            rows(ref_pairs), rows(new_pairs), n_resamples=2000
        )["pairwise_accuracy_strict"]
        ours = paired_bootstrap("pairwise", labels, ref_pairs, new_pairs, 2000, 42, method="BCa")
        assert ours["ci_low"] == pytest.approx(theirs["ci_low"], abs=1e-12)
        assert ours["ci_high"] == pytest.approx(theirs["ci_high"], abs=1e-12)
        assert (ours["reliable"], ours["significant"]) == (
            theirs["reliable"],
            theirs["significant"],
        )
        theirs = authors.compute_bootstrap_results_pointwise_all(
            list(zip(ref, labels)), list(zip(new, labels)), n_resamples=2000
        )["f1_macro"]
        ours = paired_bootstrap("pointwise", labels, ref, new, 2000, 42, method="BCa")
        assert ours["ci_low"] == pytest.approx(theirs["ci_low"], abs=1e-12)
        assert ours["ci_high"] == pytest.approx(theirs["ci_high"], abs=1e-12)
        assert (ours["reliable"], ours["significant"]) == (
            theirs["reliable"],
            theirs["significant"],
        )


def test_instance_outcomes_average_runs_as_the_authors_bootstrap_does():
    runs = np.array([[0, 1, TIE], [0, 0, FAILED], [1, 1, 0]])
    assert instance_outcomes("pairwise", [0, 1, 0], runs).tolist() == pytest.approx(
        [2 / 3, 2 / 3, 1 / 3]
    )
    # pointwise: a failed run is left out of the mean; no prediction at all is the wrong class
    runs = np.array([[1, FAILED, 0], [0, FAILED, FAILED], [1, FAILED, FAILED]])
    assert instance_outcomes("pointwise", [1, 1, 0], runs).tolist() == pytest.approx(
        [2 / 3, 0.0, 0.0]
    )


def _no_aggregation_calls() -> tuple[pd.DataFrame, np.ndarray]:
    """20 pairs (idea 0 the novel one), three calls per order. Calls 1 and 2 always pick idea 0;
    call 0 picks it in both orders for pairs 0-9, splits for pairs 10-14 (a tie) and picks
    idea 1 in both orders for pairs 15-19. Every pair's six votes still favour idea 0."""
    rows = []
    for pair in range(20):
        call_zero = (0, 0) if pair < 10 else (0, 1) if pair < 15 else (1, 1)
        for order in (0, 1):
            for call in range(3):
                idea = call_zero[order] if call == 0 else 0
                choice = idea if order == 0 else 1 - idea  # order 1 shows the ideas swapped
                rows.append(
                    {"instance_id": f"{pair:02d}", "order": order, "call": call,
                     "choice": choice, "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.1}
                )  # fmt: skip
    calls = pd.DataFrame(rows)
    calls["choice"] = calls["choice"].astype("Int64")
    return calls, np.zeros(20, dtype=int)


def _verdict_rows(calls: pd.DataFrame, labels, change: str) -> pd.DataFrame:
    frame = aggregate(calls, "pairwise")
    frame["label"] = labels[frame["instance_id"].astype(int)]
    return frame.assign(model="m", setup="s", ideas="standard", change=change)


def test_no_aggregation_reports_the_published_single_draw():
    """Acceptance: no aggregation with sub-runs that differ. The published row is the draw of
    call 0 (their merge read one sub-run): strict accuracy 10/20, tie rate 5/20, soft accuracy
    12.5/20, and the mark of its 0/1 outcomes against the reference (every pair right): each
    resample's delta is minus the share of wrong or tied pairs drawn, below 0 unless all 20
    draws hit the first ten pairs (chance 2^-20), so the interval lies below 0: significant.
    The three-sub-run mean would say 0.5, 1, 1 → 5/6 and a tie rate of 1/12 instead."""
    calls, labels = _no_aggregation_calls()
    verdicts = pd.concat(
        [
            _verdict_rows(calls, labels, "reference"),
            _verdict_rows(sub_runs(calls, None), labels, "no_aggregation"),
        ]
    )
    table = metrics_table(verdicts, "pairwise", 2000, 42, method="BCa").set_index("change")
    assert table.loc["reference", "strict_accuracy"] == 1.0
    row = table.loc["no_aggregation"]
    assert row["n_runs"] == 1 and row["n_calls"] == 40
    assert row["strict_accuracy"] == 0.5 and row["quality"] == 0.5
    assert row["tie_rate"] == 0.25 and row["soft_accuracy"] == 0.625
    assert row["accuracy_without_ties"] == pytest.approx(10 / 15)
    assert row["difference"] == -0.5
    assert row["reliable"] and row["significant"] and row["ci_high"] < 0

    averaged = _verdict_rows(sub_runs(calls, 3), labels, "no_aggregation")
    sub = metrics_table(
        pd.concat([_verdict_rows(calls, labels, "reference"), averaged]), "pairwise", 2000, 42
    ).set_index("change")
    assert sub.loc["no_aggregation", "n_runs"] == 3
    assert sub.loc["no_aggregation", "strict_accuracy"] == pytest.approx(5 / 6)
    assert sub.loc["no_aggregation", "tie_rate"] == pytest.approx(1 / 12)


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


def test_pointwise_no_aggregation_reports_the_single_draw_macro_f1():
    """Six ideas (three novel), three calls each; calls 1 and 2 are always right, call 0 errs
    on ideas 2 and 5. The reference majority is always right (F1 1). The published draw:
    TP 2, FP 1, FN 1, TN 2, so both classes have P = R = F1 = 2/3 and macro-F1 2/3 (the three
    sub-runs' mean would be 8/9). Its mark, by percentile: a resample avoiding both wrong ideas
    (chance (4/6)^6 ≈ 0.088, above 2.5%) has delta 0, so the interval reaches 0: not
    significant, though reliable (the deltas vary)."""
    labels = np.array([1, 1, 1, 0, 0, 0])
    call_zero = [1, 1, 0, 0, 0, 1]
    calls = pd.DataFrame(
        [
            {"instance_id": str(i), "order": 0, "call": call,
             "choice": call_zero[i] if call == 0 else int(labels[i]),
             "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.1}
            for i in range(6) for call in range(3)
        ]
    )  # fmt: skip
    calls["choice"] = calls["choice"].astype("Int64")
    frames = []
    for change, table in (("reference", calls), ("no_aggregation", sub_runs(calls, None))):
        frame = aggregate(table, "pointwise")
        frame["label"] = labels[frame["instance_id"].astype(int)]
        frames.append(frame.assign(model="m", setup="s", ideas="standard", change=change))
    table = metrics_table(pd.concat(frames), "pointwise", 2000, 42).set_index("change")
    assert table.loc["reference", "macro_f1"] == 1.0
    row = table.loc["no_aggregation"]
    assert row["macro_f1"] == pytest.approx(2 / 3) and row["quality"] == pytest.approx(2 / 3)
    assert row["precision_novel"] == pytest.approx(2 / 3)
    assert row["recall_not_novel"] == pytest.approx(2 / 3)
    assert row["difference"] == pytest.approx(-1 / 3)
    assert row["reliable"] and not row["significant"] and row["ci_high"] == 0.0


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
