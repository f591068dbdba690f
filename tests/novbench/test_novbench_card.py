"""A NovBench card's statistics on hand-made per-paper scores: means and intervals, the nearest
published row, the paired Wilcoxon test and the unpaired fallback (values computed by hand)."""

import math

import pandas as pd
import pytest

from noveval.core.published import published
from noveval.novbench import card, card_report
from noveval.novbench.tables import METRICS

# Three hand-made published rows. Their spreads (sample standard deviations): relevance 1.0,
# coverage 0.2, clarity 0.1, dist_acc 0.1.
PUBLISHED = pd.DataFrame(
    [
        ("emnlp2023", "model-a", "zero", "none", 3.0, 0.2, 0.6, 0.6),
        ("emnlp2023", "model-b", "zero", "none", 2.0, 0.4, 0.5, 0.5),
        ("emnlp2023", "model-c", "few", "none", 4.0, 0.6, 0.7, 0.7),
    ],
    columns=["dataset", "model", "strategy", "perturbation", *METRICS],
)


def scores(model, strategy, values, perturbation="none") -> pd.DataFrame:
    """Per-paper scores of one cell: every metric of paper i is ``values[i]`` (a relevance
    offset by 2 so it stays on its 1-5 scale)."""
    rows = []
    for i, value in enumerate(values):
        rows.append(
            {
                "dataset": "d",
                "paper_id": f"p{i}",
                "model": model,
                "strategy": strategy,
                "perturbation": perturbation,
                "relevance": 2 + value,
                "coverage": value,
                "clarity": value,
                "dist_acc": value,
                "unparseable": False,
                "failed": False,
            }
        )
    return pd.DataFrame(rows)


def test_the_mean_and_its_interval_over_papers():
    found = card.mean_interval([0.1, 0.2, 0.3, 0.4, float("nan")])
    assert found["mean"] == pytest.approx(0.25) and found["n"] == 4  # the NaN (failed) left out
    assert 0.1 <= found["low"] < 0.25 < found["high"] <= 0.4
    assert card.mean_interval([0.5]) == {"mean": 0.5, "low": 0.5, "high": 0.5, "n": 1}
    assert card.mean_interval([])["n"] == 0


def test_the_published_rows_are_table_2s_models_wide():
    rows = card.published_rows(published("novbench"))
    assert len(rows) == 19 * 3  # Table 2: 19 models x zero, few, rag; the human row left out
    assert "human" not in set(rows["model"])
    assert set(rows["perturbation"]) == {"none"} and set(rows["dataset"]) == {"emnlp2023"}
    long = pd.DataFrame(
        [
            ("2", "m", "zero", "relevance", 3.0),
            ("2", "m", "zero", "coverage", 0.2),
            ("2", "m", "zero", "clarity", 0.6),
            ("2", "m", "zero", "dist_acc", 0.5),
            ("2", "human", "-", "relevance", 2.8),
            ("3", "other", "zero", "relevance", 1.0),
        ],
        columns=["table", "model", "strategy", "metric", "paper_value"],
    ).assign(dataset="e", perturbation="none")
    (row,) = card.published_rows(long).to_dict("records")
    assert row == {
        "dataset": "e",
        "model": "m",
        "strategy": "zero",
        "perturbation": "none",
        "relevance": 3.0,
        "coverage": 0.2,
        "clarity": 0.6,
        "dist_acc": 0.5,
    }


def test_the_nearest_published_row_weighs_each_metric_by_its_spread():
    scales = card.metric_scales(PUBLISHED)
    assert scales == pytest.approx(
        {"relevance": 1.0, "coverage": 0.2, "clarity": 0.1, "dist_acc": 0.1}
    )
    means = {"relevance": 2.9, "coverage": 0.5, "clarity": 0.52, "dist_acc": 0.52}
    # by hand, in units of the spreads: to a 0.1² + 1.5² + 0.8² + 0.8² = 3.54, to b 0.9² + 0.5²
    # + 0.2² + 0.2² = 1.14, to c 1.1² + 0.5² + 1.8² + 1.8² = 7.94; unscaled a would be nearest
    near = card.nearest(means, PUBLISHED, scales)
    assert (near["model"], near["strategy"]) == ("model-b", "zero")
    assert near["distance"] == pytest.approx(math.sqrt(1.14))
    assert card.nearest(means | {"coverage": float("nan")}, PUBLISHED, scales) is None


def test_the_paired_test_is_wilcoxons_on_the_per_paper_differences():
    other = scores("m", "zero", [0.1, 0.2, 0.3, 0.4, 0.5])
    # differences 0.2, -0.05, 0.08, 0.02, 0.03 (x10: ranks 1 to 5 by size, the negative one 3rd):
    # W- = 3, W+ = 12; exactly, 5 of the 32 sign patterns have W <= 3: p = 2 x 5/32
    mine = scores("m", "custom-x", [0.3, 0.15, 0.38, 0.42, 0.53])
    found = card.paired_test(mine, other, "coverage")
    assert found["n"] == 5
    assert found["difference"] == pytest.approx((0.2 - 0.05 + 0.08 + 0.02 + 0.03) / 5)
    assert found["statistic"] == pytest.approx(3.0)
    assert found["p_value"] == pytest.approx(10 / 32)
    assert not found["significant"]
    # six papers, every one higher: W- = 0, p = 2 x 1/64, significant at 0.05
    other = scores("m", "zero", [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    mine = scores("m", "custom-x", [0.2, 0.35, 0.35, 0.48, 0.52, 0.63])
    found = card.paired_test(mine, other, "dist_acc")
    assert (found["statistic"], found["n"]) == (0.0, 6)
    assert found["p_value"] == pytest.approx(2 / 64) and found["significant"]
    same = card.paired_test(other, other, "clarity")
    assert (same["difference"], same["p_value"], same["significant"]) == (0.0, 1.0, False)


def test_a_failed_paper_is_left_out_of_the_pairs():
    other = scores("m", "zero", [0.1, 0.2, 0.3])
    mine = scores("m", "custom-x", [0.2, 0.4, 0.9])
    mine.loc[2, "coverage"] = float("nan")
    found = card.paired_test(mine, other, "coverage")
    assert found["n"] == 2 and found["difference"] == pytest.approx(0.15)


def test_the_card_pairs_against_the_nearest_published_model_when_this_run_scored_it():
    mine = scores("m", "custom-x", [0.39, 0.41, 0.43, 0.45, 0.47, 0.49])
    paper = scores("model-b", "zero", [0.3, 0.31, 0.32, 0.33, 0.34, 0.35])
    other = scores("model-a", "zero", [0.4, 0.42, 0.44, 0.46, 0.48, 0.5])
    sections, tests = card_report.card_tables(
        pd.concat([mine, paper, other]), "custom-x", PUBLISHED, resamples=200
    )
    (section,) = sections.to_dict("records")
    assert section["coverage"] == pytest.approx(0.44) and section["papers"] == 6
    assert (section["nearest_model"], section["nearest_run_here"]) == ("model-b", True)
    assert list(tests["kind"]) == [card.PAIRED] * 4  # the nearest was run: no unpaired rows
    assert set(tests["against"]) == {"model-b zero"}
    coverage = tests.set_index("metric").loc["coverage"]
    assert coverage["p_value"] == pytest.approx(2 / 64)  # every paper higher
    assert coverage["difference"] == pytest.approx(0.44 - 0.325)
    assert "against model-b zero run here: higher Relevance (p=0.031)" in card.reading(
        "x", sections, tests
    )


def test_without_the_nearest_model_the_card_checks_its_published_values_unpaired():
    mine = scores("m", "custom-x", [0.39, 0.41, 0.43, 0.45, 0.47, 0.49])
    sections, tests = card_report.card_tables(mine, "custom-x", PUBLISHED, resamples=200)
    assert not sections.iloc[0]["nearest_run_here"]
    assert list(tests["kind"]) == [card.UNPAIRED] * 4 and set(tests["against"]) == {"model-b zero"}
    # model-b's published values (2.0, 0.4, 0.5, 0.5) against the interval of 2.44, 0.44 ...:
    # every paper's value is above 0.39 (relevance 2.39), so none of them is inside
    assert not tests["inside"].any()
    assert card.inside(0.44, 0.41, 0.47) and not card.inside(0.5, 0.41, 0.47)
    text = card.reading("x", sections, tests)
    assert (
        "model-b zero was not run here; its published value lies inside the interval on 0 of 4"
        in text
    )
    markdown = card_report.card_markdown("x", "m", sections, tests, PUBLISHED)
    assert card.UNPAIRED in markdown and "| model-c | few | none |" in markdown


def test_a_paper_cell_run_here_is_still_paired_when_the_nearest_published_one_was_not():
    mine = scores("m", "custom-x", [0.39, 0.41, 0.43, 0.45, 0.47, 0.49])
    run = scores("m", "zero", [0.39, 0.41, 0.43, 0.45, 0.47, 0.49])
    _, tests = card_report.card_tables(pd.concat([mine, run]), "custom-x", PUBLISHED, 200)
    assert sorted(set(tests["kind"])) == sorted({card.PAIRED, card.UNPAIRED})
    paired = tests[tests["kind"] == card.PAIRED]
    assert set(paired["against"]) == {"m zero"} and (paired["p_value"] == 1.0).all()


def test_the_leaderboard_has_a_row_per_evaluator_and_section():
    mine = scores("m", "custom-x", [0.4, 0.5])
    sections, _ = card_report.card_tables(mine, "custom-x", PUBLISHED, resamples=200)
    board = card_report.leaderboard(sections.assign(evaluator="x"))
    assert list(board[["evaluator", "dataset", "perturbation"]].iloc[0]) == ["x", "d", "none"]
    assert board.iloc[0]["coverage"] == pytest.approx(0.45)
