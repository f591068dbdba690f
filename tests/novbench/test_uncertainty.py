"""Bootstrap intervals and paired tests of NovBench means, on hand-made per-paper scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import bootstrap

from noveval.novbench import uncertainty
from noveval.novbench.tables import METRICS


def scores_of(cells: dict[tuple[str, str, str], list[float]]) -> pd.DataFrame:
    """Per-paper scores: every metric of a cell takes the given values, paper by paper."""
    rows = []
    for (model, strategy, perturbation), values in cells.items():
        for paper, value in enumerate(values):
            rows.append(
                {"paper_id": f"p{paper}", "model": model, "strategy": strategy}
                | {"perturbation": perturbation}
                | dict.fromkeys(METRICS, value)
            )
    return pd.DataFrame(rows)


def test_constant_scores_give_a_degenerate_interval():
    intervals = uncertainty.cell_intervals(scores_of({("human", "-", "-"): [0.5] * 8}))
    assert len(intervals) == len(METRICS)
    assert (intervals["mean"] == 0.5).all()
    assert (intervals["ci_low"] == 0.5).all() and (intervals["ci_high"] == 0.5).all()


def test_a_cell_interval_is_scipy_percentile_bootstrap_of_the_mean():
    values = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.55, 0.05, 0.6, 0.3]
    intervals = uncertainty.cell_intervals(scores_of({("m", "zero", "none"): values}))
    expected = bootstrap(
        (np.array(values),),
        np.mean,
        confidence_level=0.95,
        n_resamples=uncertainty.RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(uncertainty.SEED),
    ).confidence_interval
    row = intervals[intervals["metric"] == "coverage"].iloc[0]
    assert row["mean"] == pytest.approx(0.425)
    assert row["ci_low"] == pytest.approx(expected.low)
    assert row["ci_high"] == pytest.approx(expected.high)
    assert row["ci_low"] < 0.425 < row["ci_high"] and row["n"] == 10


def test_a_constant_paired_difference_is_significant_with_a_degenerate_interval():
    base = [0.2, 0.5, 0.3, 0.9, 0.4]
    scores = scores_of({("m", "zero", "none"): base, ("m", "zero", "del"): [v - 0.1 for v in base]})
    tests = uncertainty.paired_tests(scores)
    assert list(tests["comparison"].unique()) == ["perturbation"]
    row = tests[tests["metric"] == "relevance"].iloc[0]
    assert (row["a"], row["b"]) == ("zero/none", "zero/del")
    assert row["difference"] == pytest.approx(-0.1)
    assert row["ci_low"] == pytest.approx(-0.1) and row["ci_high"] == pytest.approx(-0.1)
    assert row["significant"] and row["n"] == 5


def test_paired_tests_cover_strategies_and_perturbations_but_not_the_human_row():
    values = [0.1, 0.2, 0.3]
    cells = {
        ("m", strategy, perturbation): values
        for strategy in ("rag", "zero", "few")
        for perturbation in ("none", "del")
    }
    tests = uncertainty.paired_tests(scores_of(cells | {("human", "-", "-"): values}))
    # 3 strategy pairs in each of 2 perturbations, del vs none for each of 3 strategies
    assert len(tests) == (3 * 2 + 3) * len(METRICS)
    strategy_pairs = tests[(tests["comparison"] == "strategy") & (tests["metric"] == "clarity")]
    assert list(zip(strategy_pairs["a"], strategy_pairs["b"], strict=True))[:3] == [
        ("zero/del", "few/del"),
        ("zero/del", "rag/del"),
        ("few/del", "rag/del"),
    ]
    assert not tests["significant"].any() and set(tests["model"]) == {"m"}


def test_failed_papers_are_left_out_and_only_shared_papers_are_paired():
    scores = scores_of({("m", "zero", "none"): [0.2, 0.4, 0.6], ("m", "few", "none"): [0.3] * 3})
    scores.loc[(scores["strategy"] == "zero") & (scores["paper_id"] == "p2"), METRICS] = np.nan
    intervals = uncertainty.cell_intervals(scores)
    zero = intervals[(intervals["strategy"] == "zero") & (intervals["metric"] == "dist_acc")]
    assert zero.iloc[0]["n"] == 2 and zero.iloc[0]["mean"] == pytest.approx(0.3)
    row = uncertainty.paired_tests(scores).iloc[0]
    assert row["n"] == 2 and row["difference"] == pytest.approx(0.0)


def test_markdown_holds_both_tables():
    text = uncertainty.markdown(scores_of({("m", "zero", "none"): [0.5] * 3}))
    assert "95% bootstrap intervals" in text and "[0.500, 0.500]" in text
    assert "Paired bootstrap tests" not in text  # one cell: nothing to pair
