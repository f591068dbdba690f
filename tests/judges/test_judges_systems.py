"""The judges track's systems: the agentic judge (the Responses API with the hosted web search).

Its requests go through the real request layer to the loopback provider, which checks the
web-search tool's documented shape and answers with a ``web_search_call`` item; costs and search
counts are worked by hand from the loopback's fixed token counts.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import pandas as pd
import pytest
import yaml
from conftest import REPO, config_schema
from loopback_api import ANSWER, INPUT_TOKENS, OUTPUT_TOKENS
from report_conditions import CONDITIONS
from snakemake.utils import update_config, validate

from noveval.core.pricing import Usage
from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.inference.engines import providers
from noveval.inference.engines.client import ClientSettings, send_requests
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.servers import serve
from noveval.inference.requests import build_request
from noveval.inference.workloads import PlanSettings
from noveval.judges.grid.build import judges_grid
from noveval.judges.instances import load_release
from noveval.judges.prompts import TOOLS, call_item_id, calls_of, judge_requests
from noveval.judges.statistics.aggregation import aggregate
from noveval.judges.statistics.summary import metrics_table
from noveval.judges.verdicts import calls_from_responses
from noveval.planning.judges import judges_workloads
from noveval.planning.table import plan_table
from noveval.reproduction.judges import judges_row
from noveval.reproduction.targets import configured

SAMPLE = REPO / "data" / "sample" / "judges"
REGISTRY = load_registry(REPO / "config" / "models.yaml")
AGENTIC = REGISTRY.model("gpt-5.6-sol")
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 96}
WEB_SEARCH = [{"type": "web_search", "filters": {"allowed_domains": ["arxiv.org"]}}]
# One loopback call: 1000 input tokens at $5/M, 200 output tokens at $30/M, one search at $10/1k.
CALL_USD = 1000 * 5.0 / 1e6 + 200 * 30.0 / 1e6 + 10.0 / 1e3


def default_config(*overlays: str) -> dict:
    """config/config.yaml with ``overlays`` (config files), its defaults filled by the schema."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for overlay in overlays:
        update_config(config, yaml.safe_load((REPO / "config" / overlay).read_text()))
    validate(config, config_schema())
    return config


def ideas(count: int = 2) -> list[dict]:
    table = load_release(SAMPLE / "human-only" / "pointwise.yaml", "human-only", "pointwise")
    return table.head(count).to_dict("records")


def send(loopback, spec, rows, tmp_path, monkeypatch):
    monkeypatch.setenv(spec.api_key_env, "sk-loopback")
    pointed = replace(spec, base_url=loopback.base_url(spec.api))
    with Journal(tmp_path / spec.name, "job") as journal:
        with serve(pointed, tmp_path / "serve.log") as endpoint:
            failures = send_requests(
                rows, endpoint, journal, ClientSettings(2, 30, 0), spec.cost_usd
            )
    return failures, read_records(journal.path)


def test_agentic_calls_carry_the_web_search_and_are_priced_with_their_searches(
    loopback, tmp_path, monkeypatch, caplog
):
    calls = calls_of("agentic", {"pointwise": 3, "pairwise_per_order": 3}, {})
    rows = judge_requests(ideas(), "agentic", AGENTIC, DECODING, calls, reasoning_summary="auto")
    assert len(rows) == 2  # one decision per idea, whatever judges.calls says
    assert all(json.loads(row["tools"]) == WEB_SEARCH for row in rows)
    with caplog.at_level(logging.INFO, logger="noveval.inference.engines.client"):
        failures, records = send(loopback, AGENTIC, rows, tmp_path, monkeypatch)
    assert failures == 0
    assert [r["web_searches"] for r in records] == [1, 1]
    assert all(r["cost_usd"] == pytest.approx(CALL_USD) for r in records)
    assert all(r["text"] == ANSWER for r in records)  # the message's text, not the search item
    assert caplog.text.count(": 1 web searches") == 2
    sent = [body for _, rid, body in loopback.bodies if rid in {r["request_id"] for r in rows}]
    assert [body["tools"] for body in sent] == [WEB_SEARCH] * 2
    assert [body["reasoning"] for body in sent] == [{"effort": "medium", "summary": "auto"}] * 2


def test_loopback_refuses_web_search_tools_the_documentation_forbids(
    loopback, tmp_path, monkeypatch
):
    messages = [{"role": "user", "content": "Idea?"}]
    cases = [
        ([{"type": "web_search", "filters": {"allowed_domains": ["https://arxiv.org"]}}], "omit"),
        ([{"type": "web_browse"}], "Invalid value: 'web_browse'"),
        ([{"type": "web_search_preview", "filters": {"allowed_domains": ["arxiv.org"]}}], "filt"),
        ([{"type": "web_search", "search_context_size": "huge"}], "'low', 'medium' and 'high'"),
        (
            [{"type": "web_search", "filters": {"allowed_domains": ["arxiv.org"] * 101}}],
            "maximum length 100",
        ),
    ]
    for index, (tools, message) in enumerate(cases):
        row = build_request(f"bad|{index}", AGENTIC, messages, DECODING, tools=tools)
        failures, records = send(loopback, AGENTIC, [row], tmp_path, monkeypatch)
        assert failures == 1 and "BadRequestError" in records[-1]["error"]
        assert message in records[-1]["error"] and records[-1]["web_searches"] == 0


def test_tools_are_part_of_the_request_id_and_go_through_the_responses_api_only():
    messages = [{"role": "user", "content": "Idea?"}]
    plain = build_request("i|0", AGENTIC, messages, DECODING)
    searching = build_request("i|0", AGENTIC, messages, DECODING, tools=WEB_SEARCH)
    assert plain["tools"] is None and plain["request_id"] != searching["request_id"]
    assert build_request("i|0", AGENTIC, messages, DECODING, tools=WEB_SEARCH) == searching
    chat = providers.Endpoint("http://127.0.0.1:1/v1", "key", "gpt-5.6-sol", api="chat")
    with pytest.raises(ValueError, match="through the Responses API only, not chat"):
        providers.provider_for(chat).arguments(searching)
    assert TOOLS == {"agentic": WEB_SEARCH}


def test_the_grid_runs_each_system_backbone_on_every_release_pointwise_file():
    config = default_config()
    systems = config["judges"]["systems"]
    systems["agentic"] = {"models": ["gpt-5.6-sol"]}
    grid = judges_grid(config, REGISTRY)
    agentic = [cell for cell in grid.cells if cell.change == "agentic"]
    assert sorted((c.model, c.format, c.setup) for c in agentic) == [
        ("gpt-5.6-sol", "pointwise", "human-only"),
        ("gpt-5.6-sol", "pointwise", "human-plus-generated"),
    ]
    assert ("sample", "gpt-5.6-sol", "cells") in grid.batches()
    systems["agentic"]["setups"] = ["human-plus-generated"]
    grid = judges_grid(config, REGISTRY)
    assert [c.setup for c in grid.cells if c.change == "agentic"] == ["human-plus-generated"]
    systems["agentic"]["setups"] = ["human-plus-everything"]
    with pytest.raises(ValueError, match="agentic.setups: human-plus-everything not among"):
        judges_grid(config, REGISTRY)
    systems["agentic"] = {"models": ["gpt-4o"]}
    with pytest.raises(ValueError, match="judges.systems.agentic: gpt-4o speaks the chat API"):
        judges_grid(config, REGISTRY)
    systems["agentic"] = {"models": ["gpt-9"]}
    with pytest.raises(ValueError, match="judges.systems.agentic: unknown model 'gpt-9'"):
        judges_grid(config, REGISTRY)


def test_agentic_metrics_count_searches_and_cost_without_a_reference():
    """Two ideas (labels 1, 0), one call each with 2 and 0 searches: the verdicts 1 and 1 give
    macro-F1 (2/3 + 0) / 2; the cost is the calls' tokens plus two searches."""
    rows = []
    for index, (text, searches) in enumerate([('{"novelty": 1}', 2), ('{"novelty": 1}', 0)]):
        usage = Usage(INPUT_TOKENS, OUTPUT_TOKENS, web_searches=searches)
        rows.append(
            {
                "request_id": f"r{index}",
                "item_id": call_item_id(str(index), 0, 0),
                "text": text,
                "error": None,
                "input_tokens": INPUT_TOKENS,
                "output_tokens": OUTPUT_TOKENS,
                "cost_usd": AGENTIC.cost_usd(usage),
                "web_searches": searches,
            }
        )
    verdicts = aggregate(calls_from_responses(pd.DataFrame(rows), "pointwise"), "pointwise")
    verdicts = verdicts.assign(
        label=verdicts["instance_id"].map({"0": 1, "1": 0}),
        model="gpt-5.6-sol",
        setup="human-plus-generated",
        change="agentic",
    )
    assert verdicts["web_searches"].tolist() == [2, 0]
    row = metrics_table(verdicts, "pointwise", 50, 0).iloc[0]
    assert row["web_searches"] == 2
    assert row["cost_usd"] == pytest.approx(2 * (1000 * 5.0 + 200 * 30.0) / 1e6 + 2 * 10.0 / 1e3)
    assert row["macro_f1"] == pytest.approx((2 / 3 + 0) / 2)
    assert pd.isna(row["flip_rate"])  # no reference run of the agentic judge's backbone


def test_the_plan_prices_the_agentic_judge_with_its_assumed_searches():
    """300 declared ideas, one call each, 4 searches a call: 1,200 searches at $10 per thousand
    on top of the tokens; the batch column halves the tokens only."""
    settings = PlanSettings(web_searches_per_call=4)
    config = default_config()
    missing = "nowhere/pointwise.yaml"
    cells = [
        {
            "dataset": "d",
            "model": "gpt-5.6-sol",
            "format": "pointwise",
            "setup": "s",
            "ideas": "standard",
            "change": c,
        }
        for c in ("agentic", "reference")
    ]
    workloads = judges_workloads(
        cells,
        {"d": {"s": {"pointwise": missing}}},
        {missing: 300},
        {**config["judges"], "calls": {"pointwise": 3, "pairwise_per_order": 3}},
        config["decoding"],
        REGISTRY,
        None,
        settings,
    )
    agentic, reference = workloads
    assert (agentic.calls, agentic.web_searches) == (300, 1200)
    assert (reference.calls, reference.web_searches) == (900, 0)
    row = plan_table([agentic], REGISTRY, 16, settings).iloc[0]
    tokens = (agentic.input_tokens * 5.0 + agentic.output_tokens * 30.0) / 1e6
    assert row["web_searches"] == 1200
    assert row["api_cost_usd"] == pytest.approx(tokens + 12.0, abs=0.01)
    assert row["api_cost_batch_usd"] == pytest.approx(tokens / 2 + 12.0, abs=0.01)


def test_the_face_off_row_compares_the_agentic_judge_of_the_paper_grid():
    grid = configured(default_config("paper.yaml"))["judges"]
    assert "gpt-5.6-sol" in grid["models"] and "agentic" in grid["changes"]
    row = next(
        row
        for row in published("judges").itertuples(index=False)
        if row.table == "retrieval face-off figure" and row.change == "agentic"
    )
    agentic = {"model": "gpt-5.6-sol", "setup": "human-plus-generated", "change": "agentic"}
    metrics = pd.DataFrame(
        [agentic | {"macro_f1": 0.7781, "n_calls": 308, "n_failed_calls": 0}]
    ).assign(substitutes_for=None)
    result = judges_row(row, grid, {("novelty-eval", "pointwise"): metrics}, {}, CONDITIONS)
    assert (result["verdict"], result["our_value"]) == ("match", pytest.approx(0.7781))
