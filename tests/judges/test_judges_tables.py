"""The judge study's tables and figures on hand-made verdicts, instances and annotations, and the
idea format as a grid dimension."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml
from conftest import REPO, shared_file
from snakemake.utils import update_config

from noveval.core.registry import load_registry
from noveval.inference.requests import RequestsTarget
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.grid.build import judges_grid
from noveval.judges.grid.cells import (
    CELL_KINDS,
    CHANGES,
    IDEA_FORMATS,
    LABEL_SEPARATOR,
    change_label,
    label_kind,
)
from noveval.judges.grid.cells import (
    LABELS as CELL_LABELS,
)
from noveval.judges.instances import write_instances
from noveval.judges.prompts import calls_of, judge_requests
from noveval.judges.stages.controlled_study import controlled_study
from noveval.judges.stages.expert_study import expert_study
from noveval.judges.stages.plan_format_figure import plan_format_figure
from noveval.judges.stages.requests import requests
from noveval.judges.stages.soft_accuracy import soft_accuracy
from noveval.judges.statistics import figures, tables
from noveval.judges.statistics.aggregation import TIE
from noveval.judges.statistics.summary import metrics_table

REGISTRY = load_registry(REPO / "config" / "models.yaml")
LABELS = [0, 1, 0, 1, 0, 1, 0, 1]
# One judge on one setup: the reference gets every pair right; each cell's verdicts by hand (by
# its display label).
VERDICTS = {
    "reference": [0, 1, 0, 1, 0, 1, 0, 1],
    "P4": [1, 1, 0, 1, TIE, 1, 0, 0],  # 3 flips; 5 right, 1 tie
    "purpose_mechanism": [0, 1, 0, 1, 0, 1, TIE, 1],  # 1 flip
    "P4+purpose_mechanism": [1, 0, 1, 0, 0, 1, 0, 1],  # 4 flips
}


def verdict_rows(verdicts: dict, labels: list[int], setup: str, model: str = "m") -> list[dict]:
    return [
        {
            "model": model,
            "setup": setup,
            "ideas": label_kind(label)[1],
            "change": label_kind(label)[0],
            "instance_id": str(i),
            "label": labels[i],
            "verdict": verdict,
            "n_calls": 2,
            "n_failed": 0,
            "input_tokens": 5,
            "output_tokens": 1,
            "cost_usd": 0.5,
        }
        for label, column in verdicts.items()
        for i, verdict in enumerate(column)
    ]


def plain(path) -> str:
    """A Markdown file's text with the table padding collapsed."""
    return re.sub(r" +", " ", path.read_text())


@pytest.fixture(scope="module")
def metrics() -> pd.DataFrame:
    rows = verdict_rows(VERDICTS, LABELS, "human-only")
    return metrics_table(pd.DataFrame(rows), "pairwise", resamples=200, seed=1)


def test_change_labels_cross_the_idea_formats_and_no_wildcard_carries_two_fields():
    assert change_label("reference", "purpose_mechanism") == "purpose_mechanism"
    assert change_label("P4", "purpose_mechanism") == "P4+purpose_mechanism"
    assert change_label("P4") == "P4"
    assert CELL_LABELS == tuple(change_label(*kind) for kind in CELL_KINDS)
    assert len(set(CELL_LABELS)) == len(CELL_LABELS)
    for kind in CELL_KINDS:
        assert label_kind(change_label(*kind)) == kind
    assert "retrieval+purpose_mechanism" not in CELL_LABELS
    # the wildcards: a change alone, a form of the ideas alone
    assert not any(LABEL_SEPARATOR in name for name in (*CHANGES, *IDEA_FORMATS))
    assert set(CHANGES).isdisjoint(IDEA_FORMATS)
    assert {change for change, _ in CELL_KINDS} == set(CHANGES)


def test_the_grid_tables_name_setup_and_model_as_columns(metrics, tmp_path):
    markdown = tmp_path / "tables.md"
    tables.write(metrics, markdown)
    text = plain(markdown)
    assert text.count("| setup | model | reference | P4 | purpose_mechanism |") == 3
    assert "| human-only | m | 100 | 62.5* |" in text
    assert "('" not in text


def test_flip_rates_against_the_reference_and_the_motivating_prompt_by_hand(metrics, tmp_path):
    rows = verdict_rows(VERDICTS, LABELS, "human-only")
    sub_runs = {"no_aggregation": [0, 1, 0, 1, 0, 1, 0, 1]}
    sub_runs_1 = {"no_aggregation": [1, 1, 0, 1, 0, 1, 0, 0]}  # 2 flips in run 1
    verdicts = pd.DataFrame(
        [{**row, "run": 0} for row in rows + verdict_rows(sub_runs, LABELS, "human-only")]
        + [{**row, "run": 1} for row in verdict_rows(sub_runs_1, LABELS, "human-only")]
    )
    csv, markdown = tmp_path / "flips.csv", tmp_path / "flips.md"
    baselines = {"reference": None, "P4": ["P4+purpose_mechanism"]}
    tables.write_flip_rates({"pairwise": verdicts}, baselines, csv, markdown)
    table = pd.read_csv(csv).set_index(["against", "change_label"])
    assert list(table.loc["reference"].index) == [
        "P4",
        "purpose_mechanism",
        "P4+purpose_mechanism",
        "no_aggregation",
    ]
    assert table.loc["reference", "flipped"].to_dict() == {
        "P4": 3,
        "purpose_mechanism": 1,
        "P4+purpose_mechanism": 4,
        "no_aggregation": 1,
    }
    assert table.loc[("reference", "no_aggregation"), "flip_rate"] == 1 / 8  # (0 + 2/8) / 2
    for change, rate in metrics.set_index("change_label")["flip_rate"].drop("reference").items():
        assert table.loc[("reference", change), "flip_rate"] == rate  # as in the metrics
    p4_on_plans = table.loc[("P4", "P4+purpose_mechanism")]
    assert p4_on_plans["flipped"] == 5 and p4_on_plans["n_instances"] == 8
    assert p4_on_plans[["change", "ideas"]].tolist() == ["P4", "purpose_mechanism"]
    assert table.loc[("reference", "purpose_mechanism"), "change"] == "reference"
    assert "| pairwise | human-only | m | P4 | reference | 8 | 3 | 37.5 |" in plain(markdown)


def test_plan_format_sets_each_change_beside_it_on_the_ideas_as_written(metrics):
    table = tables.plan_format_table(metrics).set_index("change_label")
    assert list(table.index) == ["purpose_mechanism", "P4+purpose_mechanism"]
    p4 = table.loc["P4+purpose_mechanism"]
    assert p4["change"] == "P4" and p4["ideas"] == "purpose_mechanism"
    assert p4["strict_accuracy"] == 4 / 8
    assert p4["difference"] == pytest.approx(4 / 8 - 1)  # against the reference on abstracts
    assert p4["strict_accuracy_standard"] == 5 / 8 and p4["flip_rate"] == 4 / 8
    assert p4["difference_standard"] == pytest.approx(5 / 8 - 1)
    assert pd.isna(p4["macro_f1"]) and pd.isna(p4["macro_f1_standard"])  # pairwise only
    assert table.loc["purpose_mechanism", "strict_accuracy_standard"] == 1.0
    assert table.loc["purpose_mechanism", "tie_rate"] == 1 / 8


def test_ideation_table_gives_accuracies_and_their_difference_from_the_reference(tmp_path):
    verdicts = {"reference": [1, 1, 1, 0], "P3": [1, TIE, 0, 0]}
    rows = verdict_rows(verdicts, [1, 1, 1, 1], "ideation-big-vs-small") + verdict_rows(
        {"reference": [0, 1]}, [0, 1], "human-only"
    )
    metrics = metrics_table(pd.DataFrame(rows), "pairwise", resamples=200, seed=1)
    csv, markdown = tmp_path / "ideation.csv", tmp_path / "ideation.md"
    tables.write_ideation(metrics, csv, markdown)
    table = pd.read_csv(csv).set_index("change")
    assert (
        len(table) == 2 and set(table["stronger"]) == {"big"} and set(table["weaker"]) == {"small"}
    )
    p3 = table.loc["P3"]
    assert p3["strict_accuracy"] == 1 / 4 and p3["soft_accuracy"] == 1.5 / 4
    assert p3["strict_accuracy_difference"] == -0.5 and p3["flip_rate"] == 2 / 4
    assert table.loc["reference", "strict_accuracy_difference"] == 0
    assert "| m | ideation-big-vs-small | big | small | P3 | 4 | 25 | 37.5 |" in (plain(markdown))


def test_dataset_sizes_count_pairs_and_ideas_per_setup_from_the_instances(tmp_path):
    pairwise = pd.DataFrame(
        {
            "setup": "human-only",
            "format": "pairwise",
            "area": ["nlp", "nlp", "vision"],
            "ideas": [["a", "b"], ["a", "c"], ["d", "e"]],
            "label": [0, 1, 0],
        }
    )
    pointwise = pd.DataFrame(
        {
            "setup": "human-only",
            "format": "pointwise",
            "area": ["nlp"] * 4,
            "ideas": [["a"], ["b"], ["c"], ["d"]],
            "label": [1, 0, 0, 1],
        }
    )
    csv, markdown = tmp_path / "sizes.csv", tmp_path / "sizes.md"
    tables.write_dataset_sizes(
        [pairwise, pointwise, pairwise.head(2)], ["standard", "standard", "purpose_mechanism"],
        csv, markdown,
    )  # fmt: skip
    table = pd.read_csv(csv).set_index("idea_format")
    standard = table.loc["standard"]
    assert standard[["pairs", "ideas_in_pairs", "ideas"]].tolist() == [3, 5, 4]
    assert standard[["novel_ideas", "not_novel_ideas"]].tolist() == [2, 2]
    plans = table.loc["purpose_mechanism"]
    assert plans[["pairs", "ideas_in_pairs"]].tolist() == [2, 3] and pd.isna(plans["ideas"])
    assert "| human-only | standard | 3 | 5 | 4 | 2 | 2 |" in plain(markdown)


EXPERT_ROWS = [  # (judge, gold, predicted, expert)
    ("j1", "A", "B", "A"),  # an error; the expert sides with the label
    ("j1", "B", "tie", "A"),  # a tied error; the expert sides with neither
    ("j1", "A", "A", "A"),  # a control; the expert agrees with both
    ("j2", "B", "A", "A"),  # an error; the expert sides with the judge
]


def test_expert_study_counts_errors_controls_and_the_experts_side(tmp_path):
    annotations = pd.DataFrame(
        [
            {
                "item_id": f"{i:03d}",
                "problem_id": i,
                "source_file": "data/human-plus-generated/pairwise.yaml",
                "generation_model": "g",
                "judge_model": judge,
                "shown_A_idea": "x",
                "shown_B_idea": "y",
                "gold": gold,
                "predicted": predicted,
                "annotation": expert,
                "annotation_reasoning": "because",
            }
            for i, (judge, gold, predicted, expert) in enumerate(EXPERT_ROWS)
        ]
    )
    path = tmp_path / "judge_errors.csv"
    annotations.to_csv(path, index=False)
    csv, markdown = tmp_path / "expert.csv", tmp_path / "expert.md"
    expert_study(str(path), csv, markdown)
    table = pd.read_csv(csv).set_index("judge_model")
    both = table.loc["all"]
    assert both[["items", "errors", "controls", "tied_errors"]].tolist() == [4, 3, 1, 1]
    assert both[["expert_with_label", "expert_with_judge"]].tolist() == [2, 2]
    assert both[["errors_expert_with_label", "errors_expert_with_judge"]].tolist() == [1, 1]
    assert table.loc["j1", ["items", "errors", "controls"]].tolist() == [3, 2, 1]
    assert "| all | all | all | 4 | 3 | 1 | 1 |" in plain(markdown)
    annotations.drop(columns="annotation").to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"judge_errors.csv: no column\(s\) \['annotation'\]"):
        expert_study(str(path), csv, markdown)


def test_expert_study_of_the_shared_excerpt():
    path = shared_file("novelty-eval", "expert-annotations", "judge_errors.csv")
    table = tables.expert_study(pd.read_csv(path, dtype=str), str(path)).set_index("judge_model")
    both = table.loc["all"]
    # the excerpt: 10 of claude-opus-4-6's errors, 2 of them ties, and the expert with the label
    assert both[["items", "errors", "controls", "tied_errors"]].tolist() == [10, 10, 0, 2]
    assert both["errors_expert_with_label"] == 10


def test_heatmaps_mark_significance_and_draw(metrics, tmp_path):
    values, labels = figures._change_matrix(metrics, "quality")
    assert list(values.index) == ["reference", "P4", "purpose_mechanism", "P4+purpose_mechanism"]
    assert labels.loc["reference", "m"] == "100.0"
    significant = metrics.set_index("change_label")["significant"]
    mark = "*" if significant["P4+purpose_mechanism"] else ""
    assert labels.loc["P4+purpose_mechanism", "m"] == f"50.0{mark}"
    path = tmp_path / "study.parquet"
    metrics.to_parquet(path)
    for name, draw in [
        ("controlled.png", lambda png: controlled_study(path, png)),
        ("soft.png", lambda png: soft_accuracy(path, png)),
        ("plan.png", lambda png: plan_format_figure(path, ["P4+purpose_mechanism"], png)),
    ]:
        draw(str(tmp_path / name))
        assert (tmp_path / name).stat().st_size > 5_000


def paper_config() -> dict:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    return config


def test_paper_grid_outputs_every_table_and_figure():
    grid = judges_grid(paper_config(), REGISTRY)
    out = "r/judges/novelty-eval"
    outputs = set(grid.outputs("r"))
    for name in [
        "pointwise/controlled_study.png",
        "pairwise/controlled_study.png",
        "pairwise/soft_accuracy.png",
        "pairwise/plan_format.png",
        "plan_format.csv",
        "flip_rates.csv",
        "ideation.csv",
        "dataset_sizes.csv",
        "expert_study.csv",
    ]:
        assert f"{out}/{name}" in outputs, name
    assert grid.other_format_changes("novelty-eval", "pairwise") == [
        "purpose_mechanism",
        *(f"{p}+purpose_mechanism" for p in ("P3", "P4", "P5")),
    ]
    assert grid.other_format_changes("novelty-eval", "pointwise") == ["purpose_mechanism"]
    paths, formats = grid.instance_files("r", "novelty-eval")
    assert f"{out}/pairwise/human-only/instances-purpose_mechanism.parquet" in paths
    assert len(paths) == len(formats) == 12 + 4  # every release file, and the 4 _plan files
    assert grid.expert_annotations("novelty-eval").endswith("expert-annotations/judge_errors.csv")
    assert grid.flip_baselines() == {"reference": None, "P3": ["P4"]}  # gpt-5.4: P4 against P3


def test_the_purpose_mechanism_cell_sends_what_it_sent_and_p4_on_plans_is_p4(tmp_path):
    """The cell named purpose_mechanism renders the reference prompt on the plan-form ideas, as
    the change of that name did; P4+purpose_mechanism renders P4 on them, at P4's calls."""
    upstream = shared_file("novelty-eval", "upstream")
    instance = {
        "instance_id": "7",
        "setup": "human-only",
        "format": "pairwise",
        "area": "nlp",
        "ideas": ["Purpose: a.\nMechanism: b.", "Purpose: c.\nMechanism: d."],
        "titles": ["t0", "t1"],
        "sources": ["human-positive", "human-negative"],
        "label": 0,
    }
    instances = tmp_path / "instances-purpose_mechanism.parquet"
    write_instances(pd.DataFrame([instance]), instances)
    spec = REGISTRY.model("gpt-5.4")
    decoding = {"seed": 0, "temperature": None, "max_tokens": 8192}
    settings = {
        "prompts": "authors",
        "max_tokens": 8192,
        "calls": {"pointwise": 3, "pairwise_per_order": 3},
        "calls_by_change": {"P4": {"pairwise_per_order": 1}},
        "structured_output": False,
        "reasoning_chars": None,
        "prompt_caching": False,
        "reasoning_summary": None,
    }
    authors = AuthorsPrompts(upstream)
    for change, prompt in [  # the cells' `change` wildcard: the change alone
        ("reference", "purpose_mechanism"),
        ("P4", "P4"),
    ]:
        out = tmp_path / f"{change}.parquet"
        target = RequestsTarget(spec.name, str(REPO / "config" / "models.yaml"), decoding, str(out))
        requests(target, str(instances), change, settings, upstream_root=str(upstream))
        before = judge_requests(
            [instance],
            change=prompt,
            spec=spec,
            decoding=decoding,
            calls=calls_of(prompt, settings["calls"], settings["calls_by_change"]),
            structured_output=False,
            authors=authors,
        )
        assert list(pd.read_parquet(out)["request_id"]) == [row["request_id"] for row in before]
    assert len(pd.read_parquet(tmp_path / "P4.parquet")) == 2
