"""Judge prompts, request ids and the grid, without any model."""

from __future__ import annotations

import ast
import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, shared_file

from noveval.core.registry import load_registry
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.generation import generated_setup, generation_requests, ideation_setup
from noveval.judges.grid.build import judges_grid
from noveval.judges.instances import load_release
from noveval.judges.layout import JudgesPaths
from noveval.judges.prompts import CACHE_CONTROL, judge_requests, messages, split_item_id
from noveval.judges.retrieval import load_corpus, top_related
from noveval.judges.rewrites import apply_rewrites, rewrite_requests
from noveval.judges.stages import metrics as metrics_stage

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
    changes = {(c.format, c.label) for c in grid.cells}
    assert ("pairwise", "P3") in changes and ("pointwise", "P3") not in changes
    assert ("pointwise", "no_aggregation") in changes
    assert ("pairwise", "purpose_mechanism") in changes and ("pointwise", "retrieval") in changes
    assert ("pairwise", "P3+purpose_mechanism") in changes
    assert ("pointwise", "P3+purpose_mechanism") not in changes
    plan_p3 = next(c for c in grid.cells if c.label == "P3+purpose_mechanism")
    assert (plan_p3.change, plan_p3.ideas) == ("P3", "purpose_mechanism")
    assert (
        JudgesPaths("r").folder(plan_p3)
        == "r/judges/sample/smollm2-135m/pairwise/human-only/purpose_mechanism/P3"
    )
    assert grid.request_inputs("r", plan_p3) == {
        "instances": "r/judges/sample/pairwise/human-only/instances-purpose_mechanism.parquet"
    }
    derived = next(c for c in grid.cells if c.label == "no_aggregation+purpose_mechanism")
    assert grid.response_cell(derived) == "pointwise/human-only/purpose_mechanism/reference"
    requests = grid.batch_requests("r", "sample", "smollm2-135m", "cells")
    assert not any("no_aggregation" in path for path in requests)
    assert not any(c.change == "low_reasoning" for c in grid.cells)  # SmolLM2: no effort knob
    assert any("exposes no reasoning effort" in line for line in grid.omitted)
    assert grid.models_used() == {"smollm2-135m"}
    config["judges"]["rewrite_model"] = None
    config["judges"]["retrieval"]["corpus"] = None
    reduced = {c.label for c in judges_grid(config, REGISTRY).cells}
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
    garbled = responses(['{"more_novel": 1}'] * 4)
    with pytest.raises(ValueError, match="ideation-big-vs-small: no pair to judge: the generati"):
        ideation_setup(base, ("big", strong), ("small", garbled), "ideation-big-vs-small")


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


def _defaults(function: ast.FunctionDef) -> dict:
    arguments = function.args.args[len(function.args.args) - len(function.args.defaults) :]
    return {a.arg: ast.literal_eval(d) for a, d in zip(arguments, function.args.defaults)}


def _keys(node) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {key for value in node.values() for key in _keys(value)}
    if isinstance(node, list):
        return {key for value in node for key in _keys(value)}
    return set()


def test_paper_mode_sends_the_authors_token_cap_caching_and_summary_for_every_change():
    """Their client's default cap (utils.py), which neither judge.py's calls nor any change of
    ablations.yaml overrides; their sweep's prompt caching, sent to Anthropic as a top-level
    cache_control; the reasoning summary of their Responses calls."""
    upstream = shared_file("novelty-eval", "upstream")
    utils = ast.parse((upstream / "src" / "utils.py").read_text())
    functions = {f.name: f for f in ast.walk(utils) if isinstance(f, ast.FunctionDef)}
    assert _defaults(functions["prompt_openai_client"])["max_completion_tokens"] == 8192
    assert _defaults(functions["prompt_anthropic_client"])["max_tokens"] == 8192
    cache_controls = [
        ast.literal_eval(node.value)
        for node in ast.walk(functions["prompt_anthropic_client"])
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Subscript)
        and ast.literal_eval(node.targets[0].slice) == "cache_control"
    ]
    assert cache_controls == [CACHE_CONTROL]
    summaries = [
        ast.literal_eval(value)
        for node in ast.walk(functions["build_responses_body"])
        if isinstance(node, ast.Dict)
        for key, value in zip(node.keys, node.values)
        if isinstance(key, ast.Constant) and key.value == "summary"
    ]
    assert summaries == ["auto"]
    judge = ast.parse((upstream / "src" / "novelty_eval" / "judge.py").read_text())
    judge_calls = [
        call
        for call in ast.walk(judge)
        if isinstance(call, ast.Call)
        and any(isinstance(a, ast.Name) and a.id == "prompt_openai_client" for a in call.args)
    ]
    assert len(judge_calls) == 2  # pointwise and pairwise
    assert all(
        {k.arg for k in c.keywords}.isdisjoint({"max_completion_tokens"}) for c in judge_calls
    )
    ablations = yaml.safe_load(
        (upstream / "src" / "novelty_eval" / "ablation" / "ablations.yaml").read_text()
    )
    assert not {key for key in _keys(ablations) if "token" in key}
    assert ablations["defaults"]["sweep"]["use_prompt_caching"] is True

    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["judges"]
    assert paper["max_tokens"] == 8192 and paper["prompt_caching"] is True
    assert paper["reasoning_summary"] == "auto"
    instance = pairs().to_dict("records")[0]
    decoding = {"seed": 0, "max_tokens": paper["max_tokens"]}
    for name in ("claude-opus-4-6", "gpt-5.4"):
        spec = REGISTRY.model(name)
        for change in ("reference", "P3", "low_reasoning"):
            rows = judge_requests(
                [instance],
                change,
                spec,
                decoding,
                {"pointwise": 1, "pairwise_per_order": 1},
                structured_output=False,
                authors=AuthorsPrompts(upstream),
                prompt_caching=paper["prompt_caching"],
                reasoning_summary=paper["reasoning_summary"],
            )
            assert {row["max_tokens"] for row in rows} == {8192}
            cached = {row["cache_control"] for row in rows}
            assert cached == ({json.dumps(CACHE_CONTROL)} if spec.api == "messages" else {None})
            summary = {row["reasoning_summary"] for row in rows}
            assert summary == ({"auto"} if spec.api == "responses" else {None})


def test_a_substitution_runs_the_successor_and_its_metrics_name_the_model_it_replaces(tmp_path):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["judges"]["substitutions"] = {"smollm2-135m": "gpt-4o-mini"}
    grid = judges_grid(config, REGISTRY)
    assert {cell.model for cell in grid.cells} == {"gpt-4o-mini"}
    assert grid.substitutes == {"gpt-4o-mini": "smollm2-135m"}
    for substitutions, message in [
        ({"gpt-5.1": "gpt-4o-mini"}, "judges.substitutions: gpt-5.1 not among judges.models"),
        ({"smollm2-135m": "gpt-9"}, "judges.substitutions.smollm2-135m: unknown model 'gpt-9'"),
    ]:
        config["judges"]["substitutions"] = substitutions
        with pytest.raises(ValueError, match=message):
            judges_grid(config, REGISTRY)
    config["judges"]["models"] = ["smollm2-135m", "gpt-4o-mini"]
    config["judges"]["substitutions"] = {"smollm2-135m": "gpt-4o-mini"}
    with pytest.raises(ValueError, match="gpt-4o-mini is a judge of the grid already"):
        judges_grid(config, REGISTRY)

    rows = [
        {
            "model": model,
            "setup": "s",
            "change": "reference",
            "instance_id": str(i),
            "run": 0,
            "label": i % 2,
            "verdict": i % 2,
            "n_calls": 2,
            "n_failed": 0,
            "input_tokens": 5,
            "output_tokens": 1,
            "cost_usd": 0.25,
            "cost_per_call_usd": 0.125,
        }
        for model in ("gpt-4o-mini", "gpt-5.1")
        for i in range(4)
    ]
    verdicts = tmp_path / "verdicts.parquet"
    pd.DataFrame(rows).to_parquet(verdicts)
    bootstrap = {"resamples": 200, "seed": 42, "method": "percentile"}
    parquet, table_csv = tmp_path / "metrics.parquet", tmp_path / "metrics.csv"
    metrics_stage.metrics(
        [str(verdicts)], "pairwise", bootstrap, parquet, table_csv, {}, grid.substitutes
    )
    metrics = pd.read_parquet(parquet).set_index("model")
    assert list(pd.read_csv(table_csv).columns[:2]) == ["model", "substitutes_for"]
    assert metrics.loc["gpt-4o-mini", "substitutes_for"] == "smollm2-135m"
    assert pd.isna(metrics.loc["gpt-5.1", "substitutes_for"])  # like-for-like


# Request ids of two sample pairs computed on the code before the form of the ideas became a
# wildcard of its own (the cell P3+purpose_mechanism, folder .../human-only/P3+purpose_mechanism):
# what reaches the model is unchanged, so a user's finished calls are never sent again.
P3_ON_PLANS_IDS = [
    "33f0a6ee6d224857e53cadebc6164449",
    "c4741196fb9e52f7256372494d201c84",
    "5f4e0f8c1d1e77acbab3aa9fcbfdb6dc",
    "6f7fbe638ffc1ef67d142eb0a444d389",
]
REFERENCE_ON_PLANS_FIRST_ID = "bf851be0e013340ef7cf59d2a6d98a84"  # of 12 (3 calls per order)


def test_the_ideas_wildcard_leaves_every_request_id_as_it_was(tmp_path):
    """Rule judges_requests' stage on the new layout (wildcards ideas + change, the folder
    .../{setup}/{ideas}/{change}) writes the very request ids the combined change name did."""
    from types import SimpleNamespace

    from noveval.core.files import write_table
    from noveval.judges.stages import requests as stage

    instances = tmp_path / "instances-purpose_mechanism.parquet"
    write_table(pairs().head(2), instances)
    settings = {
        "max_tokens": 64,
        "calls": {"pointwise": 3, "pairwise_per_order": 3},
        "calls_by_change": {"P3": {"pairwise_per_order": 1}},
        "prompts": "builtin",
        "structured_output": True,
        "reasoning_chars": 100,
        "prompt_caching": False,
        "reasoning_summary": None,
    }
    ids = {}
    for change in ("P3", "reference"):
        out = tmp_path / "purpose_mechanism" / change / "requests.parquet"
        job = SimpleNamespace(
            input=SimpleNamespace(instances=str(instances), get=lambda key: None),
            wildcards=SimpleNamespace(
                dataset="sample",
                model="smollm2-135m",
                format="pairwise",
                setup="human-only",
                ideas="purpose_mechanism",
                change=change,
            ),
            params=SimpleNamespace(
                registry=str(REPO / "config" / "models.yaml"),
                decoding={"temperature": 0.0, "seed": 0},
                settings=settings,
                upstream_root=None,
            ),
            output=[str(out)],
        )
        stage.run(job)
        ids[change] = list(pd.read_parquet(out)["request_id"])
    assert ids["P3"] == P3_ON_PLANS_IDS
    assert len(ids["reference"]) == 12 and ids["reference"][0] == REFERENCE_ON_PLANS_FIRST_ID
