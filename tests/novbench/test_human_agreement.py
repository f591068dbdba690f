"""Section 4.3's human agreement on the two released annotators' sheets, against hand values."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import shared_file

from noveval.novbench import human_agreement
from noveval.novbench.tables import METRICS


def sheets() -> list[str]:
    return [str(shared_file("novbench", f"human_eval_{n}.xlsx")) for n in (3, 4)]


def test_the_released_sheets_hold_the_same_100_samples_and_two_annotators():
    samples, choices = human_agreement.read_choices(sheets())
    assert len(samples) == 100 and list(choices.columns) == ["annotator_1", "annotator_2"]
    assert choices.index[:3].tolist() == ["514", "5475", "3036"]
    # the two annotators differ on 4 samples, both choose A 48 times
    assert (choices["annotator_1"] != choices["annotator_2"]).sum() == 4
    assert choices.eq("A").sum().tolist() == [48, 48]


def test_statistics_on_a_slice_of_the_sheets_equal_values_computed_by_hand():
    _, choices = human_agreement.read_choices(sheets())
    part = choices.iloc[59:67]  # ids 5195 ... 2251: choices BB BB BA BB AA AA BB AB
    assert part.agg("".join, axis=1).tolist() == ["BB", "BB", "BA", "BB", "AA", "AA", "BB", "AB"]
    overall = [-0.2, 0.1, 0.3, -0.4, 0.5, -0.1, -0.3, 0.0]  # metric A - B, made up
    differences = pd.DataFrame(
        {**{metric: overall for metric in METRICS}, "overall": overall}, index=part.index
    ).assign(relevance=[-d for d in overall])
    table = human_agreement.statistics(part, differences).set_index(["statistic", "metric"])
    # Fleiss: P-bar = 6/8 agreeing samples; A = 6 of 16 choices, P_e = .375² + .625² = .53125;
    # kappa = (.75 - .53125) / (1 - .53125) = 7/15
    assert table.loc[("fleiss_kappa", "-"), "value"] == pytest.approx(7 / 15)
    assert table.loc[("annotator_agreement", "-"), "value"] == pytest.approx(0.75)
    # majority B B tie B A A B tie; overall prefers B A A B A B B tie: 6 decided, 4 agree
    agreement = table.loc[("agreement", "overall")]
    assert (agreement["value"], agreement["n"]) == (pytest.approx(4 / 6), 6)
    # relevance, the reverse preference: 2 of the 6 agree
    assert table.loc[("agreement", "relevance"), "value"] == pytest.approx(2 / 6)
    # ranks of the A share (0 0 .5 0 1 1 0 .5): 2.5 2.5 5.5 2.5 7.5 7.5 2.5 5.5; of the
    # differences: 3 6 7 1 8 4 2 5; sum of products of deviations 24, of squares 36 and 42:
    # rho = 24 / sqrt(36 * 42) = 4 / sqrt(42)
    assert table.loc[("spearman", "overall"), "value"] == pytest.approx(4 / 42**0.5)
    assert table.loc[("spearman", "relevance"), "value"] == pytest.approx(-4 / 42**0.5)
    assert set(table["n_annotators"]) == {2} and set(table["n_ties"]) == {2}


def test_fleiss_kappa_of_the_two_released_annotators():
    _, choices = human_agreement.read_choices(sheets())
    differences = pd.DataFrame(0.0, index=choices.index, columns=[*METRICS, "overall"])
    table = human_agreement.statistics(choices, differences).set_index(["statistic", "metric"])
    # 96 of 100 agree; A is 96 of the 200 choices: P_e = .48² + .52² = .5008
    assert table.loc[("fleiss_kappa", "-"), "value"] == pytest.approx(
        (0.96 - 0.5008) / (1 - 0.5008)
    )
    # a metric that never prefers either output decides nothing and has no rank correlation
    assert table.loc[("agreement", "overall"), "n"] == 0
    assert pd.isna(table.loc[("spearman", "overall"), "value"])


def test_the_model_outputs_become_items_as_the_authors_filtered_them():
    text = (
        "Positive:\nA new way to align graphs.\nNone\n\nNeutral:\n\n\nNegative:\nshort\n"
        "No baseline."
    )
    assert human_agreement.sheet_items(text) == [
        ("Positive", "A new way to align graphs."),
        ("Negative", "No baseline."),
    ]
    samples, _ = human_agreement.read_choices(sheets())
    papers, outputs = human_agreement.scoring_inputs(samples.head(1))
    first = papers.iloc[0]
    assert first["paper_id"] == "514" and len(first["descriptions"]) == 6
    assert first["gold_labels"] == ["Positive", "Positive", "Positive", "Neutral", "Negative"]
    assert outputs["output"].tolist() == ["A", "B"]
    assert outputs.iloc[1]["items_label"][0] == "Positive"


def test_metric_differences_put_relevance_on_zero_to_one_for_the_overall_preference():
    rows = [
        {"paper_id": "1", "output": "A", "relevance": 3, "coverage": 0.5, "clarity": 0.6},
        {"paper_id": "1", "output": "B", "relevance": 2, "coverage": 0.5, "clarity": 0.4},
    ]
    scores = pd.DataFrame(rows).assign(dist_acc=[0.8, 1.0])
    differences = human_agreement.metric_differences(scores).loc["1"]
    assert differences["relevance"] == pytest.approx(1.0)
    assert differences["overall"] == pytest.approx((1 / 4 + 0 + 0.2 - 0.2) / 4)


def test_sheets_of_other_samples_or_other_choices_are_errors_naming_the_file(tmp_path):
    first = pd.read_excel(sheets()[0]).head(3)
    bad_choice = tmp_path / "choice.xlsx"
    first.assign(output=["A", "C", "B"]).to_excel(bad_choice, index=False)
    with pytest.raises(
        ValueError, match=r"choice\.xlsx: 'output' is not A or B for id\(s\) \[5475\]"
    ):
        human_agreement.read_choices([str(bad_choice), str(bad_choice)])
    good, other = tmp_path / "good.xlsx", tmp_path / "other.xlsx"
    first.to_excel(good, index=False)
    first.iloc[::-1].to_excel(other, index=False)
    with pytest.raises(ValueError, match=r"other\.xlsx: not the samples of .*good\.xlsx"):
        human_agreement.read_choices([str(good), str(other)])
    with pytest.raises(ValueError, match="at least two annotators"):
        human_agreement.read_choices([str(good)])
