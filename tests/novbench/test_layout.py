"""NovBench's results layout (noveval.novbench.layout): the paths are the ones cached results
already have, the templates and the concrete paths agree, and the rules spell no path of their
own."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from noveval.novbench.layout import LOGS, NovBenchLayout, cell_name, download_path, released

LAYOUT = NovBenchLayout("r")
# Every file as it was spelled before the layout had a module: a change here reruns its jobs.
TEMPLATES = {
    "release_download": "r/downloads/novbench/{dataset}.json",
    "annotation_download": "r/downloads/novbench/{dataset}/{kind}.json",
    "papers": "r/novbench/{dataset}/papers.parquet",
    "inputs": "r/novbench/{dataset}/inputs/{perturbation}.parquet",
    "requests": "r/novbench/{dataset}/{model}/{strategy}-{perturbation}/requests.parquet",
    "responses": "r/novbench/{dataset}/{model}/responses/{batch}.parquet",
    "parsed": "r/novbench/{dataset}/{model}/{strategy}-{perturbation}/parsed.parquet",
    "scores": "r/novbench/{dataset}/{model}/scores.parquet",
    "table": "r/novbench/{dataset}/table.csv",
    "radar": "r/novbench/{dataset}/sentiment_radar.png",
    "paper_type_labels": "r/novbench/{dataset}/paper_type/labels.json",
    "appendix_table": "r/novbench/{dataset}/paper_type.csv",
    "human_eval_scores": "r/novbench/{dataset}/human_eval_scores.parquet",
    "card": "r/novbench/cards/{evaluator}.md",  # a custom evaluator's (novbench.custom)
    "leaderboard": "r/novbench/cards/leaderboard.md",
}
LOG_FILES = {
    "download": "r/logs/novbench/{dataset}/download.log",
    "annotation_download": "r/logs/novbench/{dataset}/download-{kind}.log",
    "papers": "r/logs/novbench/{dataset}/papers.log",
    "inputs": "r/logs/novbench/{dataset}/inputs-{perturbation}.log",
    "requests": "r/logs/novbench/{dataset}/{model}/{strategy}-{perturbation}/requests.log",
    "parse": "r/logs/novbench/{dataset}/{model}/{strategy}-{perturbation}/parse.log",
    "score": "r/logs/novbench/{dataset}/{model}/score.log",
    "score_benchmark": "r/logs/novbench/{dataset}/{model}/score.benchmark.tsv",
    "table": "r/logs/novbench/{dataset}/table.log",
    "radar": "r/logs/novbench/{dataset}/sentiment_radar.log",
    "explorer": "r/logs/novbench/{dataset}/explorer.log",
    "paper_type_labels": "r/logs/novbench/{dataset}/paper_type/labels.log",
    "paper_type_table": "r/logs/novbench/{dataset}/paper_type.log",
    "reviewer_confidence": "r/logs/novbench/{dataset}/reviewer_confidence.log",
    "human_eval_scores": "r/logs/novbench/{dataset}/human_eval_scores.log",
    "human_agreement": "r/logs/novbench/{dataset}/human_agreement.log",
    "custom_requests": (
        "r/logs/novbench/{dataset}/{model}/{strategy}-{perturbation}/custom_requests.log"
    ),
    "card": "r/logs/novbench/cards/{evaluator}.log",
    "leaderboard": "r/logs/novbench/cards/leaderboard.log",
}


@pytest.mark.parametrize("name", TEMPLATES)
def test_each_template_is_the_path_cached_results_have(name):
    assert getattr(LAYOUT, name)() == TEMPLATES[name]


def test_each_log_is_where_it_was():
    assert set(LOGS) == set(LOG_FILES)
    assert {rule: LAYOUT.log(rule) for rule in LOGS} == LOG_FILES


def test_concrete_paths_fill_the_templates():
    cell = cell_name("zero", "none")
    assert LAYOUT.requests("d", "m", cell) == "r/novbench/d/m/zero-none/requests.parquet"
    assert LAYOUT.requests("d", "m", "paraphrase") == "r/novbench/d/m/paraphrase/requests.parquet"
    assert LAYOUT.inputs("d", released("del")) == "r/novbench/d/inputs/release_del.parquet"
    assert LAYOUT.responses("d", "m", "cells") == "r/novbench/d/m/responses/cells.parquet"
    assert LAYOUT.scores("d", "human") == "r/novbench/d/human/scores.parquet"
    assert LAYOUT.table("d", "md") == "r/novbench/d/table.md"
    assert LAYOUT.appendix_table("d", "human_eval") == "r/novbench/d/human_agreement.csv"
    assert LAYOUT.release_download("d.release_change") == download_path(
        LAYOUT.downloads, "d.release_change"
    )
    assert LAYOUT.log("inputs", dataset="d", perturbation=released()) == (
        "r/logs/novbench/d/inputs-release_{perturbation}.log"
    )
    assert LAYOUT.outputs(["a"]) == [
        "r/novbench/a/table.csv",
        "r/novbench/a/table.md",
        "r/novbench/a/sentiment_radar.png",
    ]


def test_the_rules_read_novbench_paths_from_the_layout():
    """No rule spells a NovBench results, download or log path (the judges' and construction's
    rules have layouts of their own)."""
    spelled = re.compile(r"\{(RESULTS|LOGS)\}/(downloads/)?novbench\b")
    files = [REPO / "workflow" / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
    found = [
        f"{path.name}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if spelled.search(line)
    ]
    assert found == []
