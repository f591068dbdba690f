"""The judges' results layout (noveval.judges.layout): the paths are the ones cached results already
have, the templates and the concrete paths agree, and the rules spell no path of their own."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from conftest import REPO

from noveval.judges.layout import (
    DATASET_OUTPUTS,
    FORMAT_OUTPUTS,
    LOGS,
    JudgesPaths,
    cell_keys,
    downloads_folder,
    generated_setup,
)

PATHS = JudgesPaths("r")
CELL = "r/judges/{dataset}/{model}/{format}/{setup}/{ideas}/{change}"
STEP = "r/judges/{dataset}/{model}/{format}/{setup}"
SYSTEM = "r/judges/{dataset}/{model}/pointwise/{setup}/standard"
# Every file as it was spelled before the layout had a module: a change here reruns its jobs.
TEMPLATES = {
    "release_download": "r/downloads/judges/{dataset}/{path}",
    "dataset": "r/judges/{dataset}",
    "setup": "r/judges/{dataset}/{format}/{setup}",
    "instances": "r/judges/{dataset}/{format}/{setup}/instances.parquet",
    "rewritten_instances":
        "r/judges/{dataset}/{format}/{setup}/instances-purpose_mechanism.parquet",
    "generated_instances": "r/judges/{dataset}/{format}/generated-{generator}/instances.parquet",
    "ideation_instances":
        "r/judges/{dataset}/pairwise/ideation-{stronger}-vs-{weaker}/instances.parquet",
    "related": "r/judges/{dataset}/{format}/{setup}/related.parquet",
    "model": "r/judges/{dataset}/{model}",
    "cell": CELL,
    "requests": f"{CELL}/requests.parquet",
    "verdicts": f"{CELL}/verdicts.parquet",
    "transcript": f"{CELL}/transcript.jsonl",
    "responses": "r/judges/{dataset}/{model}/responses/{batch}.parquet",
    "metrics": "r/judges/{dataset}/{format}/metrics.parquet",
}  # fmt: skip
CUSTOM_CELL = "{dataset}/{model}/custom/{judge}/{format}/{setup}/{ideas}/{wording}/{change}"
LOG_FILES = {
    "download": "r/logs/judges/{dataset}/download/{path}.log",
    "instances": "r/logs/judges/{dataset}/{format}/{setup}/instances.log",
    "generated_instances": "r/logs/judges/{dataset}/generated-{generator}/instances.log",
    "ideation_instances": "r/logs/judges/{dataset}/ideation-{stronger}-vs-{weaker}/instances.log",
    "rewritten_instances":
        "r/logs/judges/{dataset}/{format}/{setup}/instances-purpose_mechanism.log",
    "related": "r/logs/judges/{dataset}/{format}/{setup}/related.log",
    "generation_requests": "r/logs/judges/{dataset}/{model}/generation/requests.log",
    "rewrite_requests": "r/logs/judges/{dataset}/{model}/{format}/{setup}/rewrite/requests.log",
    "search_contribution_requests":
        "r/logs/judges/{dataset}/{model}/{format}/{setup}/search_contributions/requests.log",
    "search_query_requests":
        "r/logs/judges/{dataset}/{model}/{format}/{setup}/search_queries/requests.log",
    "requests": "r/logs/judges/{dataset}/{model}/{format}/{setup}/{ideas}/{change}/requests.log",
    "verdicts": "r/logs/judges/{dataset}/{model}/{format}/{setup}/{ideas}/{change}/verdicts.log",
    "ai_scientist":
        "r/logs/judges/{dataset}/{model}/pointwise/{setup}/standard/ai_scientist/check.log",
    "novelty_checker":
        "r/logs/judges/{dataset}/{model}/pointwise/{setup}/standard/novelty_checker/verdicts.log",
    "metrics": "r/logs/judges/{dataset}/{format}/metrics.log",
    "tables": "r/logs/judges/{dataset}/{format}/tables.log",
    "controlled_study": "r/logs/judges/{dataset}/{format}/controlled_study.log",
    "soft_accuracy": "r/logs/judges/{dataset}/soft_accuracy.log",
    "plan_format_figure": "r/logs/judges/{dataset}/plan_format_figure.log",
    "cost_quality": "r/logs/judges/{dataset}/cost_quality.log",
    "motivation": "r/logs/judges/{dataset}/motivation.log",
    "d_minus_sources": "r/logs/judges/{dataset}/d_minus_sources.log",
    "ideation": "r/logs/judges/{dataset}/ideation.log",
    "flip_rates": "r/logs/judges/{dataset}/flip_rates.log",
    "explorer": "r/logs/judges/{dataset}/explorer.log",
    "plan_format": "r/logs/judges/{dataset}/plan_format.log",
    "dataset_sizes": "r/logs/judges/{dataset}/dataset_sizes.log",
    "expert_study": "r/logs/judges/{dataset}/expert_study.log",
    "custom_requests": f"r/logs/judges/{CUSTOM_CELL}/requests.log",
    "custom_verdicts": f"r/logs/judges/{CUSTOM_CELL}/verdicts.log",
    "card": "r/logs/judges/cards/{judge}.log",
    "leaderboard": "r/logs/judges/cards/leaderboard.log",
}  # fmt: skip


@pytest.mark.parametrize("name", TEMPLATES)
def test_each_template_is_the_path_cached_results_have(name):
    assert getattr(PATHS, name)() == TEMPLATES[name]


def test_the_named_files_are_where_they_were():
    assert PATHS.step_requests("rewrite") == f"{STEP}/rewrite/requests.parquet"
    assert PATHS.step_requests("search_queries") == f"{STEP}/search_queries/requests.parquet"
    assert PATHS.step_requests("search_contributions") == (
        f"{STEP}/search_contributions/requests.parquet"
    )
    assert PATHS.generation_requests("human-only") == (
        "r/judges/{dataset}/{model}/generation/human-only/requests.parquet"
    )
    assert PATHS.system("novelty_checker") == f"{SYSTEM}/novelty_checker/verdicts.parquet"
    assert PATHS.system("ai_scientist", "transcript") == f"{SYSTEM}/ai_scientist/transcript.jsonl"
    assert PATHS.metrics(extension="csv") == "r/judges/{dataset}/{format}/metrics.csv"
    assert [PATHS.output(name) for name in DATASET_OUTPUTS] == [
        f"r/judges/{{dataset}}/{name}" for name in DATASET_OUTPUTS
    ]
    assert [PATHS.format_output(name) for name in FORMAT_OUTPUTS] == [
        f"r/judges/{{dataset}}/{{format}}/{name}" for name in FORMAT_OUTPUTS
    ]
    with pytest.raises(ValueError, match="no output"):
        PATHS.output("metrics.csv")


def test_the_custom_judges_files_and_cards():
    assert PATHS.custom_cell("requests.parquet") == f"r/judges/{CUSTOM_CELL}/requests.parquet"
    assert PATHS.card() == "r/judges/cards/{judge}.md"
    assert PATHS.card("mine", "png") == "r/judges/cards/mine.png"
    assert PATHS.leaderboard("csv") == "r/judges/cards/leaderboard.csv"


def test_each_log_is_where_it_was():
    assert set(LOGS) == set(LOG_FILES)
    assert {rule: PATHS.log(rule) for rule in LOGS} == LOG_FILES


def test_each_rule_has_its_log():
    """Every judges rule (``judges_<key>``) logs to its own entry of ``LOGS``."""
    rules = {
        name.removeprefix("judges_")
        for path in (REPO / "workflow" / "rules").glob("judges_*.smk")
        for name in re.findall(r"^\s*rule (judges_\w+):", path.read_text(), re.MULTILINE)
    }
    assert rules == set(LOGS)


def test_concrete_paths_fill_the_templates():
    cell = SimpleNamespace(
        dataset="d", model="m", format="pairwise", setup="s", ideas="purpose_mechanism", change="P3"
    )
    assert PATHS.folder(cell) == "r/judges/d/m/pairwise/s/purpose_mechanism/P3"
    assert PATHS.requests(*cell_keys(cell)) == f"{PATHS.folder(cell)}/requests.parquet"
    assert PATHS.instances("d", "pointwise", "s", "purpose_mechanism") == (
        "r/judges/d/pointwise/s/instances-purpose_mechanism.parquet"
    )
    assert PATHS.instances("d", "pointwise", "s", "standard") == (
        "r/judges/d/pointwise/s/instances.parquet"
    )
    assert PATHS.generated_instances("d", "pairwise", "g") == PATHS.instances(
        "d", "pairwise", generated_setup("g")
    )
    assert PATHS.ideation_instances("d", "a", "b") == (
        "r/judges/d/pairwise/ideation-a-vs-b/instances.parquet"
    )
    assert PATHS.responses("d", "m", "cells") == "r/judges/d/m/responses/cells.parquet"
    assert PATHS.release_download("d", "x/y.yaml") == f"{downloads_folder('r')}/d/x/y.yaml"
    assert PATHS.log("verdicts", dataset="d", model="m") == (
        "r/logs/judges/d/m/{format}/{setup}/{ideas}/{change}/verdicts.log"
    )


def test_the_rules_read_judges_paths_from_the_layout():
    """No rule spells a judges results, download or log path (the upstream files and the
    construction's rules have paths of their own)."""
    spelled = re.compile(r"\{(RESULTS|LOGS)\}/(downloads/)?judges\b")
    files = [REPO / "workflow" / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
    found = [
        f"{path.name}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if spelled.search(line)
    ]
    assert found == []


def test_the_package_spells_no_judges_path_outside_the_layout():
    """The grid, the pilot, the reproduction targets... read the layout: no module but
    noveval.judges.layout writes a ``{results}/judges`` or ``{results}/logs/judges`` path."""
    spelled = re.compile(r"\{results\}/(logs/|downloads/)?judges\b|(?<!construction)/judges/\{")
    package = REPO / "src" / "noveval"
    found = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if path != package / "judges" / "layout.py"
        and spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
