"""Judge prompts, request ids and the grid, without any model."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from noveval.judges.generation import generated_setup, generation_requests, ideation_setup
from noveval.judges.grid import judges_grid
from noveval.judges.instances import load_release
from noveval.judges.prompts import judge_requests, messages, split_item_id
from noveval.judges.retrieval import load_corpus, top_related
from noveval.judges.rewrites import apply_rewrites, rewrite_requests
from noveval.registry import load_registry

SAMPLE = REPO / "data" / "sample" / "judges"
REGISTRY = load_registry(REPO / "config" / "models.yaml")
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 64}


def pairs():
    return load_release(SAMPLE / "human-only" / "pairwise.yaml", "human-only", "pairwise")


def test_repeated_calls_have_distinct_stable_ids_and_both_orders():
    instances = pairs().to_dict("records")[:2]
    spec = REGISTRY.model("smollm2-135m")
    calls = {"pointwise": 3, "pairwise_per_order": 3}
    rows = judge_requests(instances, "reference", spec, DECODING, calls, True, 100)
    assert len(rows) == 2 * 2 * 3 and len({r["request_id"] for r in rows}) == 12
    assert rows == judge_requests(instances, "reference", spec, DECODING, calls, True, 100)
    assert [r["seed"] for r in rows[:3]] == [0, 1, 2]
    first, swapped = json.loads(rows[0]["messages"]), json.loads(rows[3]["messages"])
    ideas = instances[0]["ideas"]
    user, user_swapped = first[-1]["content"], swapped[-1]["content"]
    assert user.index(ideas[0]) < user.index(ideas[1])
    assert user_swapped.index(ideas[1]) < user_swapped.index(ideas[0])
    assert split_item_id(rows[3]["item_id"]) == (instances[0]["instance_id"], 1, 0)
    schema = json.loads(rows[0]["response_format"])["schema"]
    assert list(schema["properties"]) == ["reasoning", "more_novel"]


def test_each_prompt_change_differs_from_the_reference_in_its_one_way():
    idea = pairs().iloc[0]
    ideas, area = list(idea["ideas"]), idea["area"]
    reference = messages("pairwise", area, ideas, "reference")[-1]["content"]
    p1 = messages("pairwise", area, ideas, "P1")[-1]["content"]
    p2 = messages("pairwise", area, ideas, "P2")[-1]["content"]
    assert "Guardrails" in reference and "Guardrails" not in p1 and "novel when" in p1
    assert "novel when" not in p2
    shorts = {c: messages("pairwise", area, ideas, c) for c in ("P3", "P4", "P5")}
    assert all(len(m) == 1 for m in shorts.values())  # no reviewer system prompt
    assert "Reviewers" in shorts["P3"][0]["content"]
    assert "Reviewers" not in shorts["P4"][0]["content"]
    assert "more novel" in shorts["P5"][0]["content"]
    related = messages("pointwise", area, ideas[:1], "retrieval", [["A: abstract"]])[-1]
    assert "relative to the provided related work" in related["content"]
    assert "[1] A: abstract" in related["content"]
    with pytest.raises(ValueError, match="only for pairwise"):
        messages("pointwise", area, ideas[:1], "P3")


def test_rewrites_once_per_idea_and_fall_back_when_unparseable():
    table = pairs().head(2)
    spec = REGISTRY.model("smollm2-135m")
    requests = rewrite_requests(table, spec, DECODING)
    assert len(requests) == 4 and requests["request_id"].is_unique
    ideas = [i for row in table["ideas"] for i in row]
    again = rewrite_requests(table.iloc[::-1], spec, DECODING)
    assert set(again["request_id"]) == set(requests["request_id"])  # same idea, same call
    responses = pd.DataFrame(
        {
            "item_id": requests["item_id"],
            "text": ['{"purpose": "P", "mechanism": "M"}', "garbled", None, '{"purpose": "Q"}'],
            "error": [None, None, "APITimeoutError", None],
        }
    )
    rewritten = apply_rewrites(table, responses)
    assert rewritten["ideas"].iloc[0] == ["Purpose: P\nMechanism: M", ideas[1]]
    assert rewritten["ideas"].iloc[1] == ideas[2:4]


def test_related_work_is_the_most_similar_and_never_the_idea_itself():
    corpus = pd.DataFrame({"title": ["Own", "Near", "Far"], "abstract": ["a", "b", "c"]})
    vectors = {
        "idea": np.array([1.0, 0.0]),
        "a": np.array([1.0, 0.0]),
        "b": np.array([0.8, 0.6]),
        "c": np.array([0.0, 1.0]),
    }
    related = top_related(["idea"], ["own"], corpus, vectors, top_k=2)
    assert related == [["Near: b", "Far: c"]]
    assert len(load_corpus(SAMPLE / "corpus.yaml")) >= 10


def test_grid_filters_and_logs_omitted_cells():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["judges"]["changes"] = [
        *("reference", "P1", "P2", "P3", "P4", "P5"),
        *("retrieval", "low_reasoning", "no_aggregation"),
    ]
    config["judges"]["idea_formats"] = {"purpose_mechanism": ["reference", "P3", "no_aggregation"]}
    grid = judges_grid(config, REGISTRY)
    changes = {(c.format, c.change) for c in grid.cells}
    assert ("pairwise", "P3") in changes and ("pointwise", "P3") not in changes
    assert ("pointwise", "no_aggregation") in changes
    assert ("pairwise", "purpose_mechanism") in changes and ("pointwise", "retrieval") in changes
    assert ("pairwise", "P3+purpose_mechanism") in changes
    assert ("pointwise", "P3+purpose_mechanism") not in changes
    plan_p3 = next(c for c in grid.cells if c.change == "P3+purpose_mechanism")
    assert (plan_p3.prompt_change, plan_p3.idea_format) == ("P3", "purpose_mechanism")
    assert grid.request_inputs("r", plan_p3) == {
        "instances": "r/judges/sample/pairwise/human-only/instances-purpose_mechanism.parquet"
    }
    derived = next(c for c in grid.cells if c.change == "no_aggregation+purpose_mechanism")
    assert grid.response_cell(derived) == "pointwise/human-only/purpose_mechanism"
    requests = grid.batch_requests("r", "sample", "smollm2-135m", "cells")
    assert not any("no_aggregation" in path for path in requests)
    assert not any(c.change == "low_reasoning" for c in grid.cells)  # SmolLM2: no effort knob
    assert any("exposes no reasoning effort" in line for line in grid.omitted)
    assert grid.models_used() == {"smollm2-135m"}
    config["judges"]["rewrite_model"] = None
    config["judges"]["retrieval"]["corpus"] = None
    reduced = {c.change for c in judges_grid(config, REGISTRY).cells}
    assert not reduced & {"purpose_mechanism", "P3+purpose_mechanism", "retrieval", "low_reasoning"}
    config["judges"]["generation"]["generators"] = ["smollm2-135m"]
    setups = {c.setup for c in judges_grid(config, REGISTRY).cells}
    assert setups == {"human-only", "human-plus-generated", "generated-smollm2-135m"}
    config["judges"]["changes"] = ["P1"]
    with pytest.raises(ValueError, match="reference"):
        judges_grid(config, REGISTRY)


def test_grid_adds_one_pairwise_setup_per_ideation_comparison_and_drops_null_datasets():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["judges"]["generation"]["comparisons"] = [
        {"stronger": "smollm2-135m", "weaker": "gpt-4o-mini"}
    ]
    grid = judges_grid(config, REGISTRY)
    ideation = {(c.format, c.setup) for c in grid.cells if c.setup.startswith("ideation-")}
    assert ideation == {("pairwise", "ideation-smollm2-135m-vs-gpt-4o-mini")}
    assert grid.models_used() == {"smollm2-135m", "gpt-4o-mini"}
    assert "results/judges/sample/ideation.md" in grid.outputs("results")
    assert "results/judges/sample/d_minus_sources.png" in grid.outputs("results")
    config["judges"]["datasets"] = {"sample": None}
    assert judges_grid(config, REGISTRY).cells == ()


def test_ideation_setup_alternates_the_stronger_slot_and_drops_incomplete_pairs():
    base = pairs().head(4)
    ids = list(base["instance_id"])

    def responses(texts):
        return pd.DataFrame({"item_id": ids, "text": texts, "error": [None] * len(ids)})

    strong = responses([f"A strong idea number {i} " + "s" * 40 for i in range(4)])
    weak = responses([f"A weak idea number {i} " + "w" * 40 for i in range(3)] + ["short"])
    table = ideation_setup(base, ("big", strong), ("small", weak), "ideation-big-vs-small")
    assert list(table["instance_id"]) == ids[:3]  # the weak generation of the last is too short
    assert list(table["label"]) == [0, 1, 0]
    for row in table.itertuples():
        assert row.ideas[row.label].startswith("A strong idea")
        assert row.ideas[1 - row.label].startswith("A weak idea")
        assert row.titles[row.label].startswith("big-")
    assert (table["area"] == base["area"].head(3).to_numpy()).all()


def test_generated_setup_pairs_each_novel_idea_with_a_generated_one_of_its_area():
    base = pairs().head(3)
    spec = REGISTRY.model("smollm2-135m")
    requests = generation_requests(base, spec, {**DECODING, "max_tokens": 320})
    assert len(requests) == 3 and requests["request_id"].is_unique
    prompts = [json.loads(m)[0]["content"] for m in requests["messages"]]
    assert all(area in prompt for area, prompt in zip(base["area"], prompts))
    assert not any(idea[:40] in p for ideas in base["ideas"] for idea in ideas for p in prompts)
    texts = ["A generated idea about " + "x" * 40, "<think>hmm</think>   ", None]
    responses = pd.DataFrame(
        {
            "item_id": base["instance_id"],
            "text": texts,
            "error": [None, None, "APIConnectionError"],
        }
    )
    pairwise, pointwise = generated_setup(base, responses, "generated-m")
    assert len(pairwise) == 1 and len(pointwise) == 2  # empty and failed generations left out
    pair, original = pairwise.iloc[0], base.iloc[0]
    winner = original["label"]
    assert pair["label"] == winner and pair["ideas"][winner] == original["ideas"][winner]
    assert pair["ideas"][1 - winner] == texts[0] and pair["sources"][1 - winner] == "generated"
    assert sorted(pointwise["label"]) == [0, 1] and (pointwise["setup"] == "generated-m").all()
