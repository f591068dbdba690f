"""Tests for the NovBench release loader and the Parquet helpers."""

import json
import logging
from pathlib import Path

import pandas as pd
import pytest
from conftest import shared_file

from noveval.novbench.parsing import LABELS, parse_evaluation
from noveval.novbench.records import (
    PAPER_COLUMNS,
    load_release,
    read_papers,
    write_papers,
)

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "novbench_sample.json"


@pytest.fixture
def coling():
    """The authors' COLING-2020 release beside the checkout."""
    return shared_file("novbench", "coling2020_pairs.json")


def _record(**overrides):
    """A valid release record, with fields replaced or removed (value None) as given."""
    record = {
        "id": "R1",
        "title": "A Title",
        "abstract": "An abstract.",
        "decision": "Accept",
        "paper_novelty": ["We propose a new span alignment objective for NER."],
        "output_format": "Positive Novelty Evaluations  \n- Span alignment is a new idea here.  ",
        "retrieved_title": ["Related paper"],
        "retrieved_abstract": ["Related abstract."],
    }
    record.update(overrides)
    return {key: value for key, value in record.items() if value is not None}


def _write(tmp_path, records):
    path = tmp_path / "release.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_coling_release(coling):
    papers = load_release(coling)
    assert list(papers.columns) == list(PAPER_COLUMNS)
    assert len(papers) == 73
    assert papers["paper_id"].is_unique
    assert papers["gold_texts"].map(len).sum() == 221
    assert (papers["descriptions"].map(len) >= 1).all()
    assert (papers["gold_texts"].map(len) == papers["gold_labels"].map(len)).all()
    assert set().union(*papers["gold_labels"]) == set(LABELS)
    assert papers["paper_type"].isna().all()
    assert (papers["retrieved_titles"].map(len) == 0).all()


def test_coling_descriptions_are_cleaned(coling):
    papers = load_release(coling).set_index("paper_id")
    descriptions = [text for texts in papers["descriptions"] for text in texts]
    assert all(len(text) >= 10 for text in descriptions)
    assert not any(text.startswith(("•", " ")) for text in descriptions)
    assert any(
        text.startswith("We show that subword-level") for text in papers.loc["1025", "descriptions"]
    )


def test_coling_gold_texts_parse_without_flags(coling):
    for text in load_release(coling)["gold_text"]:
        parsed = parse_evaluation(text)
        assert not (parsed.empty or parsed.repetitive or parsed.unparseable), text


def test_sample_release():
    papers = load_release(SAMPLE)
    assert len(papers) == 7
    assert (papers["retrieved_titles"].map(len) == 5).all()
    assert (papers["retrieved_abstracts"].map(len) == 5).all()
    assert set(papers["paper_type"]) == {"method", "resource"}
    assert set(papers["decision"]) == {"Accept", "Reject"}
    assert papers["descriptions"].map(len).between(3, 6).all()
    assert papers["gold_texts"].map(len).between(1, 5).all()
    assert any(len(set(labels)) == 1 for labels in papers["gold_labels"])
    assert any("\n-  \n" in text or text.endswith("\n-  ") for text in papers["gold_text"])
    assert SAMPLE.stat().st_size < 40_000


def test_drops_papers_without_descriptions_or_gold(tmp_path, caplog):
    records = [
        _record(id=1),
        _record(id=2, paper_novelty=["•  short", "• "]),
        _record(id=3, output_format="Positive Novelty Evaluations  \n-  "),
    ]
    with caplog.at_level(logging.INFO, logger="noveval.novbench.records"):
        papers = load_release(_write(tmp_path, records))
    assert papers["paper_id"].tolist() == ["1"]
    assert "dropped 1 without novelty descriptions and 1 more without gold items" in caplog.text


def test_optional_fields_default_to_empty(tmp_path):
    papers = load_release(
        _write(tmp_path, [_record(retrieved_title=None, retrieved_abstract=None)])
    )
    assert papers.loc[0, "retrieved_titles"] == []
    assert papers.loc[0, "retrieved_abstracts"] == []
    assert papers.loc[0, "paper_type"] is None


def test_stringified_description_list_is_accepted(tmp_path):
    novelty = str(["We propose a new span alignment objective for NER."])
    papers = load_release(_write(tmp_path, [_record(paper_novelty=novelty)]))
    assert papers.loc[0, "descriptions"] == ["We propose a new span alignment objective for NER."]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (_record(title=None), r"record 1 \(id='R2'\): missing key 'title'"),
        (_record(paper_novelty=None), r"record 1 \(id='R2'\): missing key 'paper_novelty'"),
        (_record(abstract=["not", "text"]), r"record 1 \(id='R2'\): 'abstract' must be a string"),
        (_record(paper_novelty="We propose X."), r"record 1 \(id='R2'\): 'paper_novelty' is a"),
        (_record(paper_novelty=[1, 2]), r"record 1 \(id='R2'\): 'paper_novelty' must be a list"),
        (_record(paper_type=3), r"record 1 \(id='R2'\): 'paper_type' must be a string"),
        (_record(retrieved_abstract=["a", "b"]), r"record 1 \(id='R2'\): length mismatch, 1 "),
        (_record(retrieved_abstract=None), r"record 1 \(id='R2'\): length mismatch, "),
        (_record(retrieved_title="Related"), r"'retrieved_title' must be a list of strings"),
    ],
)
def test_malformed_record_names_the_record(tmp_path, record, message):
    record["id"] = "R2"
    with pytest.raises(ValueError, match=message):
        load_release(_write(tmp_path, [_record(), record]))


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([_record(), "not an object"], r"record 1: expected an object"),
        ([_record(id=None)], r"record 0: 'id' must be a string or an integer"),
        ([_record(), _record()], r"record 1 \(id='R1'\): duplicate id, first seen at record 0"),
        ({"records": []}, r"release\.json: expected a JSON list of records, got dict"),
    ],
)
def test_malformed_file_errors(tmp_path, records, message):
    with pytest.raises(ValueError, match=message):
        load_release(_write(tmp_path, records))


def test_parquet_round_trip(tmp_path):
    papers = load_release(SAMPLE)
    path = tmp_path / "nested" / "papers.parquet"
    write_papers(papers, path)
    restored = read_papers(path)
    pd.testing.assert_frame_equal(restored, papers)
    assert isinstance(restored.loc[0, "descriptions"], list)


def test_parquet_round_trip_keeps_empty_lists_and_missing_types(tmp_path):
    papers = load_release(
        _write(tmp_path, [_record(retrieved_title=None, retrieved_abstract=None)])
    )
    path = tmp_path / "papers.parquet"
    write_papers(papers, path)
    restored = read_papers(path)
    pd.testing.assert_frame_equal(restored, papers)
    assert restored.loc[0, "retrieved_titles"] == []
