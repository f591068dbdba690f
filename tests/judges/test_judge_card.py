"""The stability card's statistics on hand-made tables, each value computed by hand."""

import math

import numpy as np
import pandas as pd
import pytest

from noveval.judges.cards import statistics as card

# Pairwise calls: instance, order, call, choice (index of the idea as shown; None: unparseable).
# Order 1 shows the ideas swapped, so its choice c names idea 1 - c.
CALLS = pd.DataFrame(
    [
        ("a", 0, 0, 0), ("a", 1, 0, 1),  # idea 0 both orders: consistent
        ("a", 0, 1, 0), ("a", 1, 1, 0),  # idea 0 vs idea 1: inconsistent
        ("b", 0, 0, 1), ("b", 1, 0, 0),  # idea 1 both: consistent
        ("b", 0, 1, None), ("b", 1, 1, 0),  # order 0 unparseable: not compared
        ("c", 0, 0, 0), ("c", 1, 0, 0),  # idea 0 vs idea 1: inconsistent
        ("c", 0, 1, 1), ("c", 1, 1, 0),  # idea 1 both: consistent
    ],
    columns=["instance_id", "order", "call", "choice"],
)  # fmt: skip
CALLS["choice"] = CALLS["choice"].astype("Int64")
CALLS["failed"] = CALLS["choice"].isna()


def test_order_swap_consistency():
    # compared (instance, call): a0 yes, a1 no, b0 yes, c0 no, c1 yes -> 3 of 5
    assert card.order_swap_consistency(CALLS) == {"order_consistency": 0.6, "order_compared": 5}


def test_resampling_stability():
    # (instance, order) answers over the calls: a/0 [0,0] same, a/1 [1,0] changed, b/0 [1]
    # (one answer: not compared), b/1 [0,0] same, c/0 [0,1] changed, c/1 [0,0] same -> 2 of 5
    result = card.resampling_stability(CALLS)
    assert result["resample_compared"] == 5
    assert result["resample_changed"] == pytest.approx(0.4)
    assert result["resample_stability"] == pytest.approx(0.6)
    single = card.resampling_stability(CALLS[CALLS["call"] == 0])
    assert single["resample_compared"] == 0 and math.isnan(single["resample_stability"])


def test_unparseable_answers_are_counted():
    assert card.unparseable(CALLS) == {"unparseable": 1, "unparseable_rate": 1 / 12}


def verdicts(labels, values, **columns):
    ids = [f"i{k}" for k in range(len(labels))]
    return pd.DataFrame({"instance_id": ids, "label": labels, "verdict": values, **columns})


def test_delta_and_flips_of_a_change():
    labels = [0, 1, 0, 1]
    reference = verdicts(labels, [0, 1, 1, 1])  # correct 1,1,0,1: strict 0.75
    changed = verdicts(labels, [1, 1, 0, -1])  # correct 0,1,1,0 and a tie: strict 0.5
    result = card.change_delta("pairwise", reference, changed, resamples=200, seed=0)
    assert result["delta"] == pytest.approx(-0.25)
    assert result["flip_rate"] == pytest.approx(0.75)  # i0, i2, i3 change; i1 stays
    assert result["paired"] == 4
    row = card.quality("pairwise", labels, changed["verdict"], resamples=200)
    assert row["strict_accuracy"] == 0.5
    assert row["soft_accuracy"] == pytest.approx(0.625)  # (2 + 0.5) / 4
    assert row["tie_rate"] == 0.25


def test_significance_mark():
    labels = [0, 1] * 20
    reference = verdicts(labels, labels)  # all correct
    worse = verdicts(labels, [1 - v if k < 20 else v for k, v in enumerate(labels)])  # half wrong
    result = card.change_delta("pairwise", reference, worse, resamples=500, seed=1)
    assert result["delta"] == pytest.approx(-0.5) and result["flip_rate"] == 0.5
    assert result["significant"] and result["mark"] == "*"
    assert result["delta_high"] < 0
    same = card.change_delta("pairwise", reference, reference, resamples=500, seed=1)
    assert same["delta"] == 0 and same["flip_rate"] == 0 and same["mark"] == ""


def test_pointwise_quality_and_bca_interval():
    labels = np.array([1, 0] * 10)
    values = labels.copy()
    values[:4] = 1 - values[:4]  # 4 of 20 wrong: 2 novel called not novel, 2 the reverse
    row = card.quality("pointwise", labels, values, resamples=500)
    assert row["accuracy"] == 0.8
    assert row["macro_f1"] == pytest.approx(0.8)  # each class: precision = recall = 0.8
    assert row["accuracy_low"] < 0.8 < row["accuracy_high"]


def test_cost_per_100_decisions():
    table = verdicts(
        [1, 0, 1, 0], [1, 0, 1, 0], cost_usd=[0.01, 0.02, 0.03, 0.04], latency_s=[36.0] * 4
    )
    cost = card.cost_per_100(table)
    assert cost["usd_per_100"] == pytest.approx(2.5)  # 0.10 USD over 4 decisions
    assert cost["hours_per_100"] == pytest.approx(1.0)  # 144 s = 0.04 h over 4


def test_reading_names_the_changes_that_move_the_judge():
    deltas = pd.DataFrame(
        {
            "change": ["retrieval", "low_reasoning"],
            "setup": ["human-only", "human-only"],
            "measure": ["strict_accuracy", "strict_accuracy"],
            "delta": [-0.2, 0.01],
            "significant": [True, False],
            "flip_rate": [0.3, 0.05],
        }
    )
    line = card.reading("mine", deltas)
    assert line == "mine is moved by retrieval -0.20 strict_accuracy on human-only (30% flip)."
    quiet = card.reading("mine", deltas.assign(significant=False))
    assert "no change moves it significantly" in quiet and "retrieval (30% on human-only)" in quiet
