"""Both explorers of the embedded run in headless Chromium: a table link followed, a filter
applied, and every score of one paper and every verdict of one pair as the Parquet files hold
them; no console error, no network request. And the writer keeps an answer's markup as text."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest
from conftest import unavailable
from explorer_browser import chromium_available, drive

from noveval.core.explorer import Explorer, write_explorer
from noveval.judges.explorer import CHOICES, read_verdicts
from noveval.judges.statistics.aggregation import FAILED, TIE
from noveval.novbench.tables import METRICS

pytestmark = [pytest.mark.workflow, pytest.mark.model]


def explored(folder, steps):
    """The steps' results in the explorer at ``folder``, with no console error or request."""
    if not chromium_available():
        unavailable(
            "/usr/bin/chromium not found (Debian's chromium package)", "NOVEVAL_REQUIRE_CHROMIUM"
        )
    results, console, network = drive(folder, steps, timeout_s=120)
    assert not results.get("failure"), results["failure"]
    assert console == [] and results["violations"] == [] and results["pageErrors"] == []
    assert network == []
    return results["steps"]


def manifest(folder) -> dict:
    text = (folder / "data" / "manifest.js").read_text(encoding="utf-8")
    return json.loads(text[text.index(",") + 1 : text.rindex(")")])


def test_novbench_explorer_shows_the_scores_of_the_parquet_files(embedded_run):
    folder = embedded_run.results / "novbench" / "tiny" / "explorer"
    table = manifest(folder)["tables"][0]
    first_link = next(link for link in table["links"][0] if link)
    home, linked, filtered, paper = explored(
        folder,
        [
            {"go": "#home", "read": {"links": "a.cell-link"}},
            {"click": "a.cell-link", "read": {"count": "#count"}},
            {
                "go": "#rows?model=gpt-4o&perturbation=none&max.relevance=1000",
                "read": {"count": "#count"},
            },
            {"go": "#rows?paper=S001", "csv": True},
        ],
    )
    assert len(home["read"]["links"]) == sum(
        link is not None for row in table["links"] for link in row
    )
    assert linked["state"]["filter"]["eq"] == first_link["eq"]
    assert linked["read"]["count"] == [str(table["rows"][0][-1])]  # the row's papers
    scores = pd.concat(
        pd.read_parquet(embedded_run.results / "novbench" / "tiny" / model / "scores.parquet")
        for model in ("gpt-4o", "smollm2-135m", "human")
    )
    assert filtered["state"]["matching"] == len(
        scores[(scores["model"] == "gpt-4o") & (scores["perturbation"] == "none")]
    )  # 3 strategies x 2 papers
    shown = pd.read_csv(io.StringIO(paper["csv"]), keep_default_na=False)
    expected = scores[scores["paper_id"] == "S001"]
    assert len(shown) == len(expected) == 2 * 9 + 1
    merged = shown.merge(expected, on=["model", "strategy", "perturbation"], suffixes=("", "_pq"))
    assert len(merged) == len(expected)
    for metric in METRICS:
        assert merged[metric].astype(float).tolist() == pytest.approx(
            merged[f"{metric}_pq"].round(4).tolist(), abs=1e-4, nan_ok=True
        )


def test_judges_explorer_shows_the_verdicts_of_the_parquet_files(embedded_run):
    folder = embedded_run.results / "judges" / "tiny" / "explorer"
    metrics = manifest(folder)["tables"][0]
    home, linked, pair, flips = explored(
        folder,
        [
            {"go": "#home", "read": {"presets": "a.preset"}},
            {"click": "a.cell-link", "read": {"count": "#count"}},
            {"go": "#rows?instance=pairwise:human-plus-generated:0", "csv": True},
            {"go": "#rows?flag=flipped&change=P3", "read": {"count": "#count"}},
        ],
    )
    assert "Flips under P3" in home["read"]["presets"]
    assert linked["state"]["filter"]["eq"] == {
        "format": [metrics["rows"][0][0]],
        "model": [metrics["rows"][0][1]],
        "change": [metrics["rows"][0][2]],
    }
    paths = sorted(
        str(p) for p in (embedded_run.results / "judges" / "tiny").rglob("verdicts.parquet")
    )
    verdicts = read_verdicts(paths)
    pairwise = verdicts[(verdicts["format"] == "pairwise") & (verdicts["instance_id"] == "0")]
    shown = pd.read_csv(io.StringIO(pair["csv"]), keep_default_na=False)
    assert len(shown) == len(pairwise) > 5
    named = {TIE: "tie", FAILED: "failed", **CHOICES["pairwise"]}
    expected = {
        (row.model, row.change, row.run): "failed" if pd.isna(row.verdict) else named[row.verdict]
        for row in pairwise.itertuples()
    }
    got = {
        (r["model"], r["change"], int(float(r["run"]))): r["verdict"]
        for r in csv.DictReader(io.StringIO(pair["csv"]))
    }
    assert got == expected
    flip_rates = pd.read_csv(embedded_run.results / "judges" / "tiny" / "flip_rates.csv")
    p3 = flip_rates[(flip_rates["change_label"] == "P3") & (flip_rates["against"] == "reference")]
    assert flips["state"]["matching"] == p3["flipped"].sum()


def test_an_answer_holding_markup_is_written_as_data(tmp_path):
    """The writer's scripts carry an answer's <script> as a JSON string; the page shows it as
    text and it never runs (tests/test_explorer_frontend.py checks the page's side)."""
    answer = "<script>document.body.dataset.pwned=1</script><b>bold</b>"
    rows = pd.DataFrame([{"id": "r1", "paper": "p1", "model": "m", "snippet": answer}])
    columns = [
        {"name": "id", "kind": "id"},
        {"name": "paper", "label": "Paper", "kind": "key"},
        {"name": "model", "label": "Model", "kind": "key"},
        {"name": "snippet", "label": "Answer", "kind": "text"},
    ]
    explorer = Explorer(
        study="novbench",
        dataset="d",
        title="t",
        columns=columns,
        rows=rows,
        instance_column="paper",
        instance_label="paper",
        chunk_column="model",
        compare_column="model",
        match_columns=["paper"],
        text_fields=[{"name": "answer", "label": "Answer"}],
        texts={"r1": {"answer": answer}},
        instances={"p1": {"title": "<i>p1</i>", "sections": []}},
    )
    write_explorer(explorer, tmp_path / "explorer")
    (rows_step, instance) = explored(
        tmp_path / "explorer",
        [
            {"go": "#rows", "read": {"snippet": "td.text"}},
            {"go": "#instance?id=p1", "read": {"title": "h1", "texts": "pre.text"}},
        ],
    )
    assert rows_step["read"]["snippet"] == [answer]
    assert instance["read"]["texts"] == [answer] and instance["pwned"] is None
    assert instance["read"]["title"] == ["<i>p1</i>"]
