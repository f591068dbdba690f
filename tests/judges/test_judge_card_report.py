"""The stability card's tables, Markdown, figure and leaderboard on hand-made verdicts."""

import pandas as pd
import pytest

from noveval.core.published import published
from noveval.judges.cards import report as card_report

LABELS = [0, 1, 0, 1]


def cell(setup, wording, change, verdicts, choices=None, format="pairwise"):
    ids = [f"i{k}" for k in range(len(verdicts))]
    frame = pd.DataFrame(
        {
            "instance_id": ids,
            "label": LABELS,
            "verdict": verdicts,
            "cost_usd": 0.01,
            "latency_s": 9.0,
        }
    )
    rows = []
    for k, instance in enumerate(ids):  # order 0 then order 1, one call each
        for order in (0, 1):
            choice = (choices or {}).get((k, order), verdicts[k] if order == 0 else 1 - verdicts[k])
            rows.append((instance, order, 0, choice))
    calls = pd.DataFrame(rows, columns=["instance_id", "order", "call", "choice"])
    calls["choice"] = calls["choice"].astype("Int64")
    calls["failed"] = calls["choice"].isna()
    return {"setup": setup, "format": format, "wording": wording, "change": change,
            "calls": calls, "verdicts": frame}  # fmt: skip


CELLS = [
    cell("human-only", "reference", "reference", [0, 1, 1, 1]),
    cell("human-only", "reference", "low_reasoning", [1, 1, 0, -1], {(3, 1): None}),
    cell("human-only", "terse", "reference", [0, 1, 1, 1]),
    cell("human-plus-generated", "reference", "reference", [0, 1, 0, 1]),
]
BOOTSTRAP = {"resamples": 200, "seed": 0}


def test_every_cell_is_a_row_and_every_change_a_delta():
    measurements, deltas = card_report.card_tables(CELLS, BOOTSTRAP)
    assert measurements["change"].tolist() == [
        "reference", "low_reasoning", "wording:terse", "reference",
    ]  # fmt: skip
    low = measurements.iloc[1]
    assert low["strict_accuracy"] == 0.5 and low["unparseable"] == 1
    assert low["order_consistency"] == 1.0 and low["order_compared"] == 3
    assert measurements.iloc[0]["usd_per_100"] == pytest.approx(1.0)  # 0.01 per decision
    assert measurements.iloc[0]["hours_per_100"] == pytest.approx(0.25)  # 9 s per decision
    assert deltas["change"].tolist() == ["low_reasoning", "wording:terse"]
    assert deltas["delta"].tolist() == pytest.approx([-0.25, 0.0])
    assert deltas["flip_rate"].tolist() == pytest.approx([0.75, 0.0])


def test_card_markdown_names_every_measurement_and_the_paper_judges():
    measurements, deltas = card_report.card_tables(CELLS, BOOTSTRAP)
    run = pd.DataFrame(
        [{"model": "smollm2-135m", "format": "pairwise", "setup": "human-only",
          "change": "reference", "value": 0.5}]
    )  # fmt: skip
    paper = card_report.paper_judges(published("judges"), run)
    assert set(paper["source"]) == {"this run", "published"}
    text = card_report.card_markdown("mine", "smollm2-135m", measurements, deltas, paper)
    headings = ["strict_accuracy", "soft_accuracy", "tie rate", "unparseable"]
    headings += ["resampling stability", "order consistency", "USD / 100", "flip rate"]
    assert all(heading in text for heading in headings)
    assert "| human-only | pairwise | low_reasoning | strict_accuracy | -0.250" in text
    assert "| smollm2-135m | pairwise | human-only | reference | 0.500 | this run |" in text
    assert text.splitlines()[4].startswith("mine")  # the plain-language reading


def test_figure_and_leaderboard(tmp_path):
    measurements, _ = card_report.card_tables(CELLS, BOOTSTRAP)
    paper = card_report.paper_judges(published("judges"))
    card_report.card_figure(str(tmp_path / "card.png"), "mine", measurements, paper)
    assert (tmp_path / "card.png").stat().st_size > 0
    board = card_report.leaderboard({"mine": measurements})
    assert board[["setup", "value"]].values.tolist() == [["human-only", 0.75],
                                                         ["human-plus-generated", 1.0]]  # fmt: skip
