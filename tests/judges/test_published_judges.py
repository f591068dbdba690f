"""Every published judge-study number maps to a cell of the paper grid, or says why it cannot."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from conftest import REPO, config_schema, shared_file
from snakemake.utils import update_config

from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.judges.grid.build import judges_grid
from noveval.reproduction import report
from noveval.reproduction.conditions import (
    Conditions,
    config_conditions,
    paper_conditions,
    paper_config,
)
from noveval.reproduction.judges import RELEASE_FACTS, expert_counts, judges_conditions, selects
from noveval.reproduction.targets import EXPERT_FILE
from noveval.reproduction.verdicts import judged


def paper_grid():
    """The judge grid of config/paper.yaml overlaid on config/config.yaml (no file, no network)."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    return judges_grid(config, load_registry(REPO / "config" / "models.yaml"))


def cells_of(row, grid) -> list:
    """The grid's cells a published row names (a row over several judges or changes names them
    with ``*`` and ``|``)."""
    return [
        cell
        for cell in grid.cells
        if cell.dataset == row.dataset
        and cell.format == row.format
        and selects(row.setup, cell.setup)
        and selects(row.change, cell.label)
        and (row.model == "" or selects(row.model, cell.model))
    ]


def test_every_published_judge_row_maps_to_a_paper_grid_cell_or_states_why_not():
    grid = paper_grid()
    numbers = published("judges")
    unmapped, wrongly_excused, retired = [], [], []
    for row in numbers.itertuples(index=False):
        if row.metric in RELEASE_FACTS:  # counted in a release file, judged by no cell
            declared = {file.path for file in grid.releases[row.dataset]}
            assert EXPERT_FILE in declared and not row.not_run_reason, row.cell
            continue
        mapped = bool(cells_of(row, grid))
        if not mapped and any(row.model and selects(row.model, m) for m in grid.not_runnable):
            retired.append(row.cell)  # the report says why: the model is not runnable
            continue
        if not mapped and not row.not_run_reason:
            unmapped.append(f"{row.table}: {row.cell}")
        if mapped and row.not_run_reason:
            wrongly_excused.append(f"{row.table}: {row.cell}")
    assert unmapped == [] and wrongly_excused == []
    assert len(retired) == 71 and all("claude-sonnet-4-5" in cell for cell in retired)
    retrieval = numbers[numbers["change"] == "retrieval"]
    assert len(retrieval) == 78 and (retrieval["not_run_reason"] == "").all()


def test_retrieval_numbers_name_the_search_engine_they_differ_in():
    """The paper overlay runs the authors' Semantic Scholar path; they searched Paper Finder."""
    config = REPO / "config"
    paper = paper_conditions(
        config / "config.yaml",
        config / "paper.yaml",
        config_schema(),
        config / "models.yaml",
    )
    overlay = paper_config(
        config / "config.yaml",
        config / "paper.yaml",
        config_schema(),
    )
    run = config_conditions(overlay, load_registry(config / "models.yaml"))
    found = pd.DataFrame({"model": ["gpt-5.4"], "change": ["retrieval"]})
    row = published("judges").query("change == 'retrieval'").iloc[0]
    outcome = judged(
        row,
        row.paper_value,
        0.0,
        judges_conditions(row, run["judges"], found),
        judges_conditions(row, paper["judges"], found),
        {},
    )
    assert outcome["verdict"] == "not comparable"
    assert outcome["reason"].startswith(
        "not comparable: retrieval.search semantic_scholar (paper: Ai2 Paper Finder"
    )


def test_the_ideation_backbone_setups_are_named_as_the_release_folders():
    grid = paper_grid()
    numbers = published("judges")
    setups = {cell.setup for cell in grid.cells}
    backbones = {s for s in numbers["setup"] if ".backbone-" in s}
    assert backbones == {
        "human-plus-generated.backbone-gpt-5.1",
        "human-plus-generated.backbone-gpt-5.4",
        "human-plus-generated.backbone-opus-4-5",
    }
    assert backbones <= setups


LIKE_FOR_LIKE = {
    "prompts": "authors",
    "requests": {"max_tokens": 8192},
    "models": {},
    "datasets": {"novelty-eval": {"commit": "f022bc38", "blocklist": True}},
    "calls": {"calls": {"pointwise": 3, "pairwise_per_order": 3}, "calls_by_change": {}},
    "aggregation": {"no_aggregation": "first_call"},
}


def test_the_report_compares_flip_rates_sizes_ranges_significance_and_the_expert_study():
    grid = {
        "datasets": {"novelty-eval": {"name": "novelty-eval"}},
        "models": ["gpt-5.4", "claude-opus-4-6"],
        "changes": ["reference", "P3", "P4", "P5"],
    }
    ideation = "ideation-gpt-5.4-vs-gpt-5.1"
    flips = {("gpt-5.4", "P3"): 0.24, ("gpt-5.4", "P4"): 0.30, ("gpt-5.4", "P5"): 0.27,
             ("claude-opus-4-6", "P3"): 0.26, ("claude-opus-4-6", "P4"): 0.33,
             ("claude-opus-4-6", "P5"): 0.31}  # fmt: skip
    pairwise = pd.DataFrame(
        [
            {"model": m, "setup": ideation, "change": c, "flip_rate": f, "difference": -f}
            for (m, c), f in flips.items()
        ]
        + [
            {
                "model": "claude-opus-4-6",
                "setup": "human-only",
                "change": "reference",
                "n_instances": 154,
                "soft_accuracy": 0.8279,
                "cost_usd": 13.0,
            },
            {"model": "gpt-5.4", "setup": "human-only", "change": "reference", "n_instances": 154},
            {
                "model": "gpt-5.4",
                "setup": "human-only",
                "change": "P4",
                "n_instances": 154,
                "soft_accuracy": 0.7825,
                "strict_accuracy": 0.7597,
                "significant": True,
            },
        ]  # fmt: skip
    )
    pointwise = pd.DataFrame(
        [
            {
                "model": "gpt-5.4",
                "setup": "human-plus-generated",
                "change": "reference",
                "n_instances": 308,
            }
        ]  # fmt: skip
    )
    for table in (pairwise, pointwise):
        table["substitutes_for"] = None  # every judge is itself
    metrics = {("novelty-eval", "pairwise"): pairwise, ("novelty-eval", "pointwise"): pointwise}
    expert = {"novelty-eval": {"errors": 28, "controls": 2}}
    novbench = {"datasets": {}, "strategies": [], "perturbations": []}
    # the run's conditions are the paper's (test_report_conditions.py: each one that is not)
    same = {"novbench": {}, "judges": LIKE_FOR_LIKE}
    conditions = Conditions(same, same, {"max_empty_share": 0, "max_failed_share": 0})
    rows = report.rows({"novbench": novbench, "judges": grid}, {}, metrics, conditions, expert)
    judges = rows[rows["study"] == "judges"].set_index(["table", "cell", "metric"])

    def at(table, cell, metric):
        return judges.loc[(table, cell, metric)]

    low = at("ideation comparison", f"every judge pairwise {ideation} P3|P4|P5 (min)", "flip_rate")
    assert (low["our_value"], low["verdict"]) == (pytest.approx(24.0), "within")
    assert "min over 6 cells" in low["reason"]
    high = at("ideation comparison", f"every judge pairwise {ideation} P3|P4|P5 (max)", "flip_rate")
    assert high["our_value"] == pytest.approx(33.0) and high["verdict"] == "within"
    largest = "every judge pairwise ideation-* every change (largest shift)"
    shift = at("ideation comparison", largest, "difference")
    assert shift["our_value"] == pytest.approx(33.0) and shift["verdict"] == "outside"
    soft = at("soft-accuracy figure", "gpt-5.4 pairwise human-only P4", "soft_accuracy")
    assert (soft["our_value"], soft["verdict"]) == (pytest.approx(78.25), "match")
    assert "the run's bootstrap tests strict_accuracy, not soft_accuracy" in soft["reason"]
    strict = at("two-track figure", "gpt-5.4 pairwise human-only P4", "strict_accuracy")
    assert (strict["our_value"], strict["verdict"]) == (pytest.approx(75.97), "match")
    assert "significant: paper yes, ours yes (agrees)" in strict["reason"]
    cost = "claude-opus-4-6 pairwise human-only reference"
    assert at("cost-efficiency figure", cost, "soft_accuracy")["verdict"] == "match"
    assert at("cost-efficiency figure", cost, "cost_usd")["verdict"] == "within"  # 10% of 13.46
    assert at("dataset sizes", "pairwise human-only", "n_pairs")["verdict"] == "match"
    assert at("dataset sizes", "pointwise human-plus-generated", "n_ideas")["our_value"] == 308
    assert at("dataset sizes", "pointwise human-only", "n_ideas")["verdict"] == "not run"
    assert at("expert study", "judge_errors.csv (release README)", "errors")["verdict"] == "match"
    paper = at("expert study", "judge_errors.csv (paper)", "errors")
    assert (paper["our_value"], paper["verdict"]) == (28, "outside")
    motivation = at("motivation figure", "gpt-5.4 pairwise human-plus-generated P4 vs P3",
                    "flip_rate")  # fmt: skip
    assert motivation["verdict"] == "not run" and "against P3" in motivation["reason"]
    plan = at("plan-format figure", "gpt-5.4 pairwise human-only P4+purpose_mechanism",
              "difference")  # fmt: skip
    assert plan["verdict"] == "not run" and "judges.idea_formats" in plan["reason"]
    assert judges.loc[judges["verdict"] == "not run", "reason"].str.len().gt(0).all()


def test_expert_counts_tell_judge_errors_from_controls():
    # the shared excerpt: ten pairs, the judge's verdict differs from the gold in each
    counts = expert_counts(shared_file("novelty-eval", "expert-annotations",
                                              "judge_errors.csv"))  # fmt: skip
    assert counts == {"errors": 10, "controls": 0}
