"""NovBench's Tables 6–8 from the authors' annotations: the steps and their report rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import (
    LOOPBACK_KEY,
    REPO,
    config_schema,
    loopback_registry,
    run_snakemake,
    shared_file,
    snakemake_env,
)

from noveval.core.published import published
from noveval.inference.requests import RESPONSE_COLUMNS, RequestsTarget
from noveval.novbench import confidence, paper_tables, paper_type, records
from noveval.novbench.grid import Cell, NovBenchGrid
from noveval.novbench.stages.paper_type_labels import classification_labels
from noveval.novbench.stages.paper_type_requests import classification_requests
from noveval.novbench.stages.paper_type_table import paper_type_table
from noveval.novbench.tables import CLARITY_PARTS, KEYS, METRICS, SCORERS
from noveval.reproduction import paper_tables as reproduction_tables
from noveval.reproduction.conditions import Conditions, annotations, paper_conditions

FIXTURES = REPO / "tests" / "fixtures" / "paper_tables"
UPSTREAM = ("novbench", "upstream")
PAPER_SCORERS = {
    "relevance_encoder": "spiced",
    "coverage_encoder": "all-minilm-l6-v2",
    "fluency_lm": "distilgpt2",
}


def scores(rows: list[dict]) -> pd.DataFrame:
    """Per-paper scores of one cell in the layout of rule novbench_score."""
    frame = pd.DataFrame(rows)
    for column in [*METRICS, *CLARITY_PARTS]:
        if column not in frame:
            frame[column] = 0.5
    flags = {"empty": False, "unparseable": False, "repetitive": False, "failed": False}
    cell = {"model": "gpt-4o", "strategy": "zero", "perturbation": "none"}
    return frame.assign(**cell, **PAPER_SCORERS, **flags)


def test_tables_6_and_7_average_each_paper_type_and_leave_other_answers_out(tmp_path):
    labels_path = tmp_path / "labels.json"
    labels = [
        {"id": 1, "classification": "Methodological"},
        {"id": 2, "classification": "Methodological"},
        {"id": 3, "classification": "Resource"},
        {"id": 4, "classification": "Methodological paper"},  # not one word: the authors drop it
    ]
    labels_path.write_text(json.dumps(labels))
    table = paper_type.split_table(
        scores(
            [
                {"paper_id": "1", "relevance": 3.0, "clarity": 0.6},
                {"paper_id": "2", "relevance": 4.0, "clarity": np.nan},  # NaN left out
                {"paper_id": "3", "relevance": 2.0, "clarity": 0.2},
                {"paper_id": "4", "relevance": 5.0, "clarity": 0.9},
                {"paper_id": "5", "relevance": 1.0, "clarity": 0.9},  # no label
            ]
        ),
        paper_type.read_labels(str(labels_path)),
    ).set_index("paper_type")
    assert list(table.columns[:3]) == KEYS and set(SCORERS) <= set(table.columns)
    assert table.loc["method", "relevance"] == pytest.approx(3.5)
    assert table.loc["method", "clarity"] == pytest.approx(0.6)
    assert table.loc["method", "n_papers"] == 2
    assert table.loc["resource", "relevance"] == pytest.approx(2.0)


def test_the_paper_type_table_records_the_labels_files_digest(tmp_path):
    import hashlib

    labels_path = tmp_path / "labels.json"
    labels_path.write_text(json.dumps([{"id": 1, "classification": "Resource"}]))
    scores_path = tmp_path / "scores.parquet"
    scores([{"paper_id": "1"}]).to_parquet(scores_path)
    paper_type_table([str(scores_path)], str(labels_path), str(tmp_path / "t.csv"))
    table = pd.read_csv(tmp_path / "t.csv")
    digest = hashlib.sha256(labels_path.read_bytes()).hexdigest()
    assert list(table["paper_type"]) == ["resource"]
    assert list(table["annotations_sha256"]) == [digest]


def test_labels_that_match_no_scored_paper_or_lack_keys_are_errors_naming_the_file(tmp_path):
    labels_path = tmp_path / "labels.json"
    labels_path.write_text(json.dumps([{"id": 9, "classification": "Resource"}]))
    with pytest.raises(ValueError, match="no scored paper has a paper-type label"):
        paper_type.split_table(
            scores([{"paper_id": "1"}]), paper_type.read_labels(str(labels_path))
        )
    labels_path.write_text(json.dumps([{"id": 9, "label": "Resource"}]))
    with pytest.raises(
        ValueError, match=r"labels\.json: record 0 has no 'id' and 'classification'"
    ):
        paper_type.read_labels(str(labels_path))


def test_the_classifier_sends_the_authors_prompt_read_from_their_script(tmp_path):
    root = shared_file(*UPSTREAM)
    papers = pd.DataFrame(
        [{"paper_id": "7", "title": "A Corpus of X", "abstract": "We release X."}]
    ).assign(descriptions=[["x"]], gold_texts=[["g"]], gold_labels=[["Positive"]])
    papers_path, requests_path = tmp_path / "papers.parquet", tmp_path / "requests.parquet"
    records.write_papers(papers, papers_path)
    decoding = {"max_tokens": 4096, "mode": "authors"}
    script = root / paper_type.CLASSIFIER_SCRIPT
    registry = REPO / "config" / "models.yaml"
    target = RequestsTarget("gpt-4o", str(registry), decoding, str(requests_path))
    classification_requests(target, str(papers_path), str(script))
    (request,) = pd.read_parquet(requests_path).to_dict("records")
    (message,) = json.loads(request["messages"])
    assert request["item_id"] == "7" and message["role"] == "user"
    content = message["content"]
    assert content.startswith("You are an expert NLP conference reviewer.\n\nYour task is to")
    assert '- Output ONLY one word:\n  - "Methodological"\n  - or "Resource"' in content
    assert content.endswith('Title:\n"""\nA Corpus of X\n"""\nAbstract:\n"""\nWe release X.\n"""\n')


def test_the_classifier_answers_become_labels_in_the_authors_format(tmp_path):
    responses = pd.DataFrame(
        {"item_id": ["1", "2"], "text": ["Resource", None], "error": [None, "timeout"]}
    )
    assert paper_type.labels_from_responses(responses) == [
        {"id": "1", "classification": "Resource"},
        {"id": "2", "classification": None},
    ]
    # the step reads its batch's responses table (rule infer's, cell paper_type)
    batch = responses.reindex(columns=RESPONSE_COLUMNS).assign(cell="paper_type")
    batch.to_parquet(tmp_path / "paper_type.parquet")
    classification_labels(str(tmp_path / "paper_type.parquet"), str(tmp_path / "labels.json"))
    labels = paper_type.read_labels(str(tmp_path / "labels.json"))
    assert paper_type.paper_types(labels).to_dict() == {"1": "resource"}


def test_table_8_similarities_by_hand_with_a_missing_output_as_the_empty_text():
    pairs = pd.DataFrame(
        {"paper_id": ["1", "2"], "review_high": ["H1", "H2"], "review_low": ["L1", "L2"]}
    )
    outputs = pd.DataFrame(
        {
            "model": "m",
            "strategy": "zero",
            "perturbation": "none",
            "paper_id": ["1"],
            "text": ["T1"],
        }
    )
    texts = confidence.cell_texts(outputs, pairs)
    assert texts["text"].tolist() == ["T1", ""] and texts["missing"].tolist() == [False, True]
    assert set(confidence.texts_to_embed(texts)) == {"T1", "", "H1", "H2", "L1", "L2"}
    vectors = {
        "T1": np.array([1.0, 0.0]),
        "H1": np.array([1.0, 0.0]),
        "L1": np.array([0.0, 1.0]),
        "": np.array([0.6, 0.8]),
        "H2": np.array([0.6, 0.8]),
        "L2": np.array([1.0, 0.0]),
    }
    (row,) = confidence.similarities(texts, vectors).to_dict("records")
    # high: (1 + 1) / 2; low: (0 + 0.6) / 2
    assert (row["high"], row["low"]) == (pytest.approx(1.0), pytest.approx(0.3))
    assert row["diff"] == pytest.approx(0.7)
    assert (row["n_papers"], row["n_missing"]) == (2, 1)


def test_the_authors_confidence_file_and_table_8_diff():
    pairs = confidence.read_pairs(
        str(shared_file(*UPSTREAM, "rebuttal_result", "review_confidence.json"))
    )
    assert len(pairs) == 97 and pairs["paper_id"].is_unique
    result = json.loads(
        shared_file("novbench", "paper-results", "review_confidence_result.json").read_text()
    )
    gpt4o = next(entry["gpt-4o_zero"] for entry in result if "gpt-4o_zero" in entry)
    numbers = published("novbench").set_index(["table", "cell", "metric"])
    diff = numbers.loc[("8", "gpt-4o zero confidence=diff", "similarity_diff"), "paper_value"]
    assert diff == pytest.approx(gpt4o["high"] - gpt4o["low"], abs=1e-6)


def test_config_declares_annotation_files_a_classifier_and_sheets(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text("[]")
    sheet = tmp_path / "a.xlsx"
    sheet.write_text("")
    config = {
        "results": "out",
        "novbench": {
            "datasets": {
                "one": {
                    "path": "x.json",
                    "paper_types": str(labels),
                    "review_confidence": {"url": "https://example.org/c.json"},
                    "human_eval": [str(sheet), str(sheet)],
                },
                "two": {"path": "y.json", "paper_types": {"classifier": "gpt-4o"}},
                "three": "z.json",
            }
        },
    }
    tables = paper_tables.paper_tables(config)
    assert tables.labels_path("out", "one") == str(labels)
    assert tables.labels_path("out", "two") == "out/novbench/two/paper_type/labels.json"
    assert tables.file("one", "review_confidence").path == (
        "out/downloads/novbench/one/review_confidence.json"
    )
    grid = NovBenchGrid(cells=(Cell("one", "gpt-4o", "zero", "none"),), releases={},
                        paraphrase_model="gpt-4o", omitted=())  # fmt: skip
    assert tables.outputs("out", grid) == [
        "out/novbench/one/human_agreement.csv",
        "out/novbench/one/paper_type.csv",
        "out/novbench/one/reviewer_confidence.csv",
        "out/novbench/two/paper_type.csv",
    ]
    # Table 8 compares models' outputs: none without a model on the dataset
    assert "out/novbench/one/reviewer_confidence.csv" not in tables.outputs(
        "out", NovBenchGrid(cells=(), releases={}, paraphrase_model="gpt-4o", omitted=())
    )
    with pytest.raises(ValueError, match="novbench.datasets.two: no 'review_confidence' file"):
        tables.file("two", "review_confidence")
    config["novbench"]["datasets"]["two"]["review_confidence"] = str(tmp_path / "none.json")
    with pytest.raises(FileNotFoundError, match="novbench.datasets.two.review_confidence: no file"):
        paper_tables.paper_tables(config)


GRID = {
    "datasets": {"emnlp2023": {"name": "emnlp2023", "models": ["gpt-4o"]}},
    "strategies": ["zero"],
    "perturbations": ["none"],
}
CONFIDENCE_SHA = "df3b41554852550d5671918fec6810e7bd67bcc007dc032b06c75dca3d50c7c4"
PAPER = {
    "prompts": "authors",
    "decoding": {"mode": "authors", "max_tokens": 4096},
    "models": {"gpt-4o": {"reference": "gpt-4o-2024-08-06"}},
    "settings": {"few_shot_examples": 2, "seed": 2025, "keep_fraction": 0.8},
    "scoring": PAPER_SCORERS,
    "datasets": {"emnlp2023": {"sha256": "a" * 64, "papers": 1684}},
    "annotations": {
        "emnlp2023": {
            "paper_types": {"source": "file", "sha256": None},
            "review_confidence": {"source": "file", "sha256": CONFIDENCE_SHA},
        }
    },
}
LIMITS = {"max_empty_share": 0.1, "max_failed_share": 0.05}
# the dataset's table.csv: its human row gives the run's paper count
CELL_TABLES = {"emnlp2023": pd.DataFrame([{"model": "human", "n_papers": 1684}])}


def paper_table_row(row, paper_tables, run=None) -> dict:
    """The report's row of a published appendix number, the run's conditions the paper's but
    for ``run``'s NovBench keys."""
    conditions = Conditions({"novbench": PAPER | (run or {})}, {"novbench": PAPER}, LIMITS)
    digests = {"emnlp2023": "a" * 64}
    return reproduction_tables.paper_table_row(
        row, GRID, CELL_TABLES, paper_tables, conditions, digests
    )


def published_row(table: str, cell: str, metric: str):
    frame = published("novbench")
    found = frame[(frame["table"] == table) & (frame["cell"] == cell) & (frame["metric"] == metric)]
    assert len(found) == 1
    return next(found.itertuples(index=False))


def test_report_compares_tables_6_to_8_under_the_papers_conditions():
    method = published_row("6", "gpt-4o zero", "relevance")
    ours = (
        scores([{"paper_id": "1"}])
        .iloc[:1]
        .assign(paper_type="method", relevance=method.paper_value + 0.01)
    )
    tables = {("emnlp2023", "paper_type.csv"): ours}
    compared = paper_table_row(method, tables)
    assert compared["verdict"] == "within"
    assert compared["difference"] == pytest.approx(0.01)
    other_scorer = {("emnlp2023", "paper_type.csv"): ours.assign(relevance_encoder="minilm")}
    row = paper_table_row(method, other_scorer)
    assert row["verdict"] == "not comparable" and "scorer minilm (paper: spiced)" in row["reason"]
    # labels from a classifier model are not the authors' classification file
    classifier = {"emnlp2023": {"paper_types": {"source": "classifier gpt-4o", "sha256": None}}}
    row = paper_table_row(method, tables, {"annotations": classifier})
    assert row["verdict"] == "not comparable"
    assert "paper_types.source classifier gpt-4o (paper: file)" in row["reason"]
    resource = published_row("7", "gpt-4o zero", "relevance")
    assert paper_table_row(resource, tables)["reason"] == (
        "no row in emnlp2023/paper_type.csv (cell left out; see the run's log)"
    )
    assert paper_table_row(resource, {})["reason"] == (
        "novbench.datasets.emnlp2023.paper_types is not declared"
    )

    diff = published_row("8", "gpt-4o zero confidence=diff", "similarity_diff")
    similarity = pd.DataFrame(
        [{"model": "gpt-4o", "strategy": "zero", "perturbation": "none", "high": 0.6,
          "low": 0.6 - diff.paper_value, "diff": diff.paper_value, "n_papers": 97,
          "n_missing": 0, "encoder": "all-minilm-l6-v2", "annotations_sha256": CONFIDENCE_SHA}]
    )  # fmt: skip
    tables = {("emnlp2023", "reviewer_confidence.csv"): similarity}
    row = paper_table_row(diff, tables)
    assert row["verdict"] == "match"
    assert row["reason"].startswith("against the authors' file review_confidence_result.json")
    tables = {("emnlp2023", "reviewer_confidence.csv"): similarity.assign(n_missing=90)}
    missing = paper_table_row(diff, tables)
    assert missing["verdict"] == "not comparable"
    assert "empty_share 0.928 over reproduction.max_empty_share 0.1" in missing["reason"]
    assert "90 of the 97 papers of the confidence file have no output" in missing["reason"]
    other_file = similarity.assign(annotations_sha256="b" * 64, encoder="spiced")
    row = paper_table_row(diff, {("emnlp2023", "reviewer_confidence.csv"): other_file})
    assert row["verdict"] == "not comparable"
    assert f"review_confidence.sha256 {'b' * 64} (paper: {CONFIDENCE_SHA})" in row["reason"]
    assert "scorer spiced (paper: all-minilm-l6-v2)" in row["reason"]


def test_report_human_agreement_with_two_annotators_is_not_comparable():
    kappa = published_row("4.3", "human agreement: annotators", "fleiss_kappa")
    agreement = published_row("4.3", "human agreement: metric vs majority", "agreement")
    table = pd.DataFrame(
        [
            {"statistic": "fleiss_kappa", "metric": "-", "value": 0.9199},
            {"statistic": "agreement", "metric": "overall", "value": 0.79},
        ]
    ).assign(n=100, n_annotators=2, n_ties=4)
    tables = {("coling2020", "human_agreement.csv"): table}
    row = paper_table_row(kappa, tables)
    assert (row["verdict"], row["our_value"]) == ("not comparable", 0.9199)
    assert row["reason"] == (
        "not comparable: annotators 2 (paper: 4); coling2020/human_agreement.csv"
    )
    row = paper_table_row(agreement, tables)
    assert row["verdict"] == "not comparable"
    assert "majority of 2 (4 ties dropped)" in row["reason"]
    four = {("coling2020", "human_agreement.csv"): table.assign(n_annotators=4)}
    assert paper_table_row(agreement, four)["verdict"] == "within"
    assert paper_table_row(kappa, {})["verdict"] == "not run"


def overlay_command(*args: str, overlay: Path = FIXTURES / "coling_overlay.yaml") -> list[str]:
    shared_file("novbench", "coling2020_pairs.json")
    shared_file("novbench", "human_eval_3.xlsx")
    return [
        *args,
        "--cores",
        "2",
        "reproduction",
        "--configfile",
        "config/config.yaml",
        str(overlay),
    ]


@pytest.mark.workflow
def test_the_coling_overlay_plans_the_appendix_tables_before_the_report():
    result = run_snakemake(*overlay_command("-n"))
    for rule in (
        "novbench_paper_type_table",
        "novbench_reviewer_confidence",
        "novbench_human_eval_scores",
        "novbench_human_agreement",
        "reproduction_report",
    ):
        assert f"rule {rule}:" in result.stdout


@pytest.mark.workflow
@pytest.mark.model
def test_the_coling_overlay_writes_the_appendix_tables_and_their_report_rows(tmp_path, loopback):
    """The overlay on the COLING papers its annotation fixtures name (the model's answers are
    what the tables split and compare) and on the first 12 samples of the two released sheets:
    14 papers and 24 scored texts keep the run short; the answers are gpt-4o's on the loopback
    server (the tables' plumbing is what is tested, not a model's answers)."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    labelled = {
        str(paper["id"])
        for paper in json.loads((FIXTURES / "coling2020_paper_types.json").read_text())
    }
    coling = json.loads(shared_file("novbench", "coling2020_pairs.json").read_text())
    subset = tmp_path / "coling2020_labelled.json"
    subset.write_text(json.dumps([paper for paper in coling if paper["id"] in labelled]))
    sheets, choices = [], []
    for name in ("human_eval_3.xlsx", "human_eval_4.xlsx"):
        sheet = pd.read_excel(shared_file("novbench", name), dtype={"output": str}).head(12)
        sheet.to_excel(tmp_path / name, index=False)
        sheets.append(str(tmp_path / name))
        choices.append(sheet["output"].str.strip())
    settings = yaml.safe_load((FIXTURES / "coling_overlay.yaml").read_text())
    settings["novbench"]["datasets"]["coling2020"] |= {"path": str(subset), "human_eval": sheets}
    overlay = tmp_path / "overlay.yaml"
    settings["novbench"]["models"] = ["gpt-4o"]
    settings["registry"] = str(loopback_registry(tmp_path / "models.yaml", loopback, "gpt-4o"))
    overlay.write_text(yaml.safe_dump({**settings, "decoding": {"max_tokens": 64}}))
    results = tmp_path / "results"
    run_snakemake(
        *overlay_command(overlay=overlay),
        "--config",
        f"results={results}",
        env=snakemake_env(**LOOPBACK_KEY),
    )
    dataset = results / "novbench" / "coling2020"
    by_type = pd.read_csv(dataset / "paper_type.csv")
    assert set(by_type["paper_type"]) == {"method", "resource"}
    similarity = pd.read_csv(dataset / "reviewer_confidence.csv")
    assert (similarity["n_papers"] == 3).all() and (similarity["n_missing"] == 0).all()
    agreement = pd.read_csv(dataset / "human_agreement.csv").set_index(["statistic", "metric"])
    counts, _ = aggregate_raters(pd.concat(choices, axis=1).to_numpy())
    kappa = agreement.loc[("fleiss_kappa", "-"), "value"]
    assert kappa == pytest.approx(fleiss_kappa(counts, method="fleiss"))
    rows = pd.read_csv(results / "reproduction" / "report.csv", keep_default_na=False)
    human = rows[rows["table"] == "4.3"]
    assert len(human) == 3 and (human["verdict"] == "not comparable").all()
    appendix = rows[rows["table"].isin(["6", "7", "8"])]
    assert len(appendix) == 627 and appendix["reason"].str.len().gt(0).all()


def test_the_paper_config_pins_the_released_confidence_file():
    import hashlib

    import yaml

    emnlp = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["novbench"]["datasets"]
    pinned = emnlp["emnlp2023"]["review_confidence"]["sha256"]
    shared = shared_file(*UPSTREAM, "rebuttal_result", "review_confidence.json").read_bytes()
    assert hashlib.sha256(shared).hexdigest() == pinned
    assert emnlp["emnlp2023"]["paper_types"]["url"].endswith(
        "/c34448edaecfa7143d672dbeabd69bec4e796824/rebuttal_result/Final_data_classification.json"
    )


def test_the_conditions_name_each_annotation_files_source_and_digest():
    declared = {
        "paper_types": {"classifier": "gpt-4o"},
        "review_confidence": {"url": "https://example.org/c.json", "sha256": CONFIDENCE_SHA},
    }
    assert annotations(declared) == {
        "paper_types": {"source": "classifier gpt-4o", "sha256": None},
        "review_confidence": {"source": "file", "sha256": CONFIDENCE_SHA},
    }
    paper = paper_conditions(
        REPO / "config" / "config.yaml",
        REPO / "config" / "paper.yaml",
        config_schema(),
        REPO / "config" / "models.yaml",
    )
    assert paper["novbench"]["annotations"]["emnlp2023"] == PAPER["annotations"]["emnlp2023"]
