"""The provider request layer against a loopback server that enforces each API's rules.

Real requests (the judge track's and NovBench's builders), sent by the real client code through
the official SDKs to ``tests/loopback_api.py`` on 127.0.0.1; no key, no network.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import replace

import pytest
import yaml
from conftest import REPO
from loopback_api import ANSWER, INPUT_TOKENS, OUTPUT_TOKENS, RETIRED

from noveval.core.registry import RegistryError, load_registry
from noveval.inference.engines.client import ClientSettings, send_requests
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.servers import serve
from noveval.inference.requests import build_request
from noveval.judges.grid.build import judges_grid
from noveval.judges.grid.cells import CONTROLLED, DERIVED, PAIRWISE_ONLY
from noveval.judges.instances import load_release
from noveval.judges.prompts import judge_requests
from noveval.judges.rewrites import rewrite_requests

SAMPLE = REPO / "data" / "sample" / "judges"
REGISTRY = load_registry(REPO / "config" / "models.yaml")
HOSTED = sorted(
    name
    for name, spec in REGISTRY.models.items()
    if spec.engine == "api" and spec.reference not in RETIRED
)
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 96}  # config/config.yaml's values
ONE_CALL = {"pointwise": 1, "pairwise_per_order": 1}
EFFORT_FIELD = {  # where each API carries the reasoning effort
    "chat": lambda body: body.get("reasoning_effort"),
    "responses": lambda body: (body.get("reasoning") or {}).get("effort"),
    "messages": lambda body: (body.get("output_config") or {}).get("effort"),
}


@functools.cache
def instances() -> list[dict]:
    pairs = load_release(SAMPLE / "human-only" / "pairwise.yaml", "human-only", "pairwise")
    ideas = load_release(SAMPLE / "human-only" / "pointwise.yaml", "human-only", "pointwise")
    return [pairs.to_dict("records")[0], ideas.to_dict("records")[0]]


def changes_of(spec) -> list[str]:
    """The changes the judge grid runs for a model (low_reasoning only with a 'low' effort)."""
    return [
        change
        for change in CONTROLLED
        if change not in DERIVED and (change != "low_reasoning" or "low" in spec.effort_levels)
    ]


def cell_requests(spec, change: str) -> list[dict]:
    """One judge cell's calls for one pair and one idea (related work only for retrieval)."""
    rows = []
    for instance in instances():
        if change in PAIRWISE_ONLY and instance["format"] != "pairwise":
            continue
        related = {instance["instance_id"]: [["A: abstract"]] * len(instance["ideas"])}
        rows += judge_requests(
            [instance],
            change,
            spec,
            DECODING,
            ONE_CALL,
            spec.structured_output,
            200,
            related if change == "retrieval" else None,
        )
    return rows


def model_requests(spec) -> list[dict]:
    """Every judge change's calls for one pair and one idea, the purpose-mechanism rewrites, and one
    NovBench generation request, all with the config's decoding values."""
    rows = [row for change in changes_of(spec) for row in cell_requests(spec, change)]
    table = load_release(SAMPLE / "human-only" / "pairwise.yaml", "human-only", "pairwise")
    rows += rewrite_requests(table.head(1), spec, DECODING, spec.structured_output).to_dict(
        "records"
    )
    novbench = [
        {"role": "system", "content": "You are a reviewer."},
        {"role": "user", "content": "Rate the novelty of this paper."},
    ]
    rows.append(build_request("novbench|p1", spec, novbench, {**DECODING, "max_tokens": 320}))
    return rows


def send(loopback, spec, rows, tmp_path, monkeypatch, retry_for=30.0, concurrency=4):
    monkeypatch.setenv(spec.api_key_env, "sk-loopback")
    pointed = replace(spec, base_url=loopback.base_url(spec.api))
    settings = ClientSettings(concurrency, 30, retry_for)
    with Journal(tmp_path / spec.name, "job") as journal:
        with serve(pointed, tmp_path / "serve.log") as endpoint:
            failures = send_requests(rows, endpoint, journal, settings, spec.cost_usd)
    return failures, read_records(journal.path)


@pytest.mark.parametrize("name", HOSTED)
def test_every_hosted_model_request_is_accepted(name, loopback, tmp_path, monkeypatch):
    spec = REGISTRY.model(name)
    rows = model_requests(spec)
    failures, records = send(loopback, spec, rows, tmp_path, monkeypatch)
    errors = [record["error"] for record in records if record["error"]]
    assert failures == 0 and not errors, errors[:1]
    assert {r["request_id"] for r in records} == {row["request_id"] for row in rows}
    prices = spec.price_per_million
    per_call = (INPUT_TOKENS * prices["input"] + OUTPUT_TOKENS * prices["output"]) / 1e6
    assert all(r["cost_usd"] == pytest.approx(per_call) for r in records)
    assert all(r["text"] == '{"more_novel": 1}' and r["output_tokens"] == 200 for r in records)
    sent = {rid: body for _, rid, body in loopback.bodies if rid in {r["request_id"] for r in rows}}
    expected_path = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}
    assert {path for path, rid, _ in loopback.bodies if rid in sent} == {
        expected_path.get(spec.api, "/v1/messages")
    }
    for row in rows:  # the row records exactly what is sent
        body = sent[row["request_id"]]
        assert (row["temperature"] is None) == ("temperature" not in body)
        assert (row["seed"] is None) == ("seed" not in body)
        assert body[spec.token_field] == row["max_tokens"]
    if "low_reasoning" not in changes_of(spec):
        return
    honoured = EFFORT_FIELD[spec.api]
    reference, low = cell_requests(spec, "reference"), cell_requests(spec, "low_reasoning")
    assert len(reference) == len(low) == 3
    for ref_row, low_row in zip(reference, low):
        ref_body, low_body = sent[ref_row["request_id"]], sent[low_row["request_id"]]
        assert (honoured(ref_body), honoured(low_body)) == ("high", "low")
        strip = {"reasoning", "output_config", "reasoning_effort"}
        assert {k: v for k, v in ref_body.items() if k not in strip} == {
            k: v for k, v in low_body.items() if k not in strip
        }


def test_loopback_rejects_what_the_documentation_forbids(loopback, tmp_path, monkeypatch):
    """Rows not adapted to the model (built for another one) fail with the provider's 400,
    journaled with their error (each call appends to the model's journal)."""
    chat_model = REGISTRY.model("gpt-4o")
    messages = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "Idea?"}]
    raw = build_request("raw|0", chat_model, messages, {**DECODING, "max_tokens": 50})
    cases = [
        ("gpt-5.1", {**raw, "seed": None}, "'temperature' does not support 0.0 with this model"),
        ("gpt-5.4", raw, "Unsupported parameter: 'seed'"),
        ("claude-opus-4-5", raw, "seed: Extra inputs are not permitted"),
    ]
    for name, row, message in cases:
        failures, records = send(loopback, REGISTRY.model(name), [row], tmp_path, monkeypatch, 0)
        assert failures == 1 and "BadRequestError" in records[-1]["error"]
        assert message in records[-1]["error"] and records[-1]["cost_usd"] == 0.0
    gpt5_chat = replace(REGISTRY.model("gpt-5.1"), api="chat", accepts_temperature=True)
    failures, records = send(loopback, gpt5_chat, [raw], tmp_path, monkeypatch, 0)
    assert failures == 1 and "Use 'max_completion_tokens' instead" in records[-1]["error"]
    gpt5_chat = replace(gpt5_chat, token_limit="max_completion_tokens")
    failures, records = send(loopback, gpt5_chat, [raw], tmp_path, monkeypatch, 0)
    assert "Only the default (1) value is supported" in records[-1]["error"]
    sonnet = REGISTRY.model("claude-sonnet-4-5")
    forced = {**build_request("raw|1", sonnet, messages, DECODING), "reasoning_effort": "low"}
    failures, records = send(loopback, sonnet, [forced], tmp_path, monkeypatch, 0)
    assert "does not support effort 'low'" in records[-1]["error"]


def test_overloaded_anthropic_calls_are_retried(loopback, tmp_path, monkeypatch):
    spec = REGISTRY.model("claude-opus-4-6")
    row = build_request("retry|0", spec, [{"role": "user", "content": "Idea?"}], DECODING)
    loopback.overloaded = 1
    failures, records = send(loopback, spec, [row], tmp_path, monkeypatch, retry_for=30.0)
    assert failures == 0 and len(records) == 1 and records[0]["error"] is None
    assert [rid for _, rid, _ in loopback.bodies].count(row["request_id"]) == 2


def test_requests_are_adapted_when_built_and_refused_when_impossible(caplog):
    gpt5 = replace(REGISTRY.model("gpt-5.2"), name="gpt-5.2-fresh")  # logged once per model
    messages = [{"role": "user", "content": "Idea?"}]
    with caplog.at_level(logging.INFO, logger="noveval.core.registry"):
        row = build_request("a", gpt5, messages, DECODING)
    assert row["temperature"] is None and row["seed"] is None and row["max_tokens"] == 96
    unseeded = build_request("a", gpt5, messages, {"max_tokens": 96})
    assert {**row, "request_id": None} == {**unseeded, "request_id": None}
    repeat = build_request("a", gpt5, messages, {**DECODING, "seed": 1})  # call 1 of 3
    assert len({row["request_id"], unseeded["request_id"], repeat["request_id"]}) == 3
    assert "gpt-5.2-fresh: temperature not sent" in caplog.text
    with pytest.raises(RegistryError, match="'claude-sonnet-4-5': reasoning effort 'high'"):
        build_request(
            "a",
            REGISTRY.model("claude-sonnet-4-5"),
            messages,
            {**DECODING, "reasoning_effort": "high"},
        )
    schema = {"type": "json_schema", "json_schema": {"name": "v", "schema": {}}}
    with pytest.raises(RegistryError, match="'claude-opus-4-6': its messages API takes no"):
        build_request("a", REGISTRY.model("claude-opus-4-6"), messages, DECODING, schema)
    with pytest.raises(RegistryError, match="'gpt-3.5-turbo'"):
        build_request("a", REGISTRY.model("gpt-3.5-turbo"), messages, DECODING, schema)
    gpt4o = build_request("a", REGISTRY.model("gpt-4o"), messages, DECODING)
    assert gpt4o["temperature"] == 0.0 and gpt4o["seed"] == 0


def test_changed_reference_or_registry_effort_gives_new_request_ids():
    spec = REGISTRY.model("gpt-5.1")
    messages = [{"role": "user", "content": "Idea?"}]
    first = build_request("a", spec, messages, DECODING)["request_id"]
    moved = replace(spec, reference="gpt-5.1-2025-11-13")
    effort = replace(spec, reasoning_effort="low")
    assert build_request("a", moved, messages, DECODING)["request_id"] != first
    assert build_request("a", effort, messages, DECODING)["request_id"] != first
    vllm = REGISTRY.model("qwen3-8b")
    thinking = build_request("a", vllm, messages, DECODING)["request_id"]
    quiet = replace(vllm, chat_template_kwargs={"enable_thinking": False})
    assert build_request("a", quiet, messages, DECODING)["request_id"] != thinking
    assert len({spec.fingerprint(), moved.fingerprint(), effort.fingerprint()}) == 3
    assert spec.fingerprint() == REGISTRY.model("gpt-5.1").fingerprint()
    assert json.loads(build_request("a", spec, messages, DECODING)["messages"]) == messages


def test_grid_refuses_or_names_what_a_model_cannot_do():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["judges"]["models"] = ["gpt-5.1", "gpt-4o", "claude-sonnet-4-5"]
    config["judges"]["changes"] = ["reference", "low_reasoning"]
    with pytest.raises(ValueError, match="claude-sonnet-4-5 take no output schema"):
        judges_grid(config, REGISTRY)
    config["judges"]["structured_output"] = False
    grid = judges_grid(config, REGISTRY)
    low = {cell.model for cell in grid.cells if cell.change == "low_reasoning"}
    assert low == {"gpt-5.1"}
    assert any("gpt-4o" in line and "no reasoning effort 'low'" in line for line in grid.omitted)
    assert not any(cell.model == "claude-sonnet-4-5" for cell in grid.cells)  # retired


def test_a_retired_model_answers_not_found_and_is_not_retried(loopback, tmp_path, monkeypatch):
    spec = REGISTRY.model("claude-sonnet-4-5")
    row = build_request("retired|0", spec, [{"role": "user", "content": "Idea?"}], DECODING)
    failures, records = send(loopback, spec, [row], tmp_path, monkeypatch, retry_for=30.0)
    assert failures == 1 and records[0]["error"].startswith("NotFoundError")
    assert "not_found_error" in records[0]["error"] and records[0]["cost_usd"] == 0.0
    assert [rid for _, rid, _ in loopback.bodies].count(row["request_id"]) == 1


def test_claude_prompt_caching_writes_once_then_reads_at_cache_prices(
    loopback, tmp_path, monkeypatch
):
    """One pair, 3 calls per order, cached: per order the first call writes the prompt and the
    two others read it. claude-opus-4-6 at $5 / $25 per million: a write call costs
    (1000 x 5 x 1.25 + 200 x 25) / 1e6 = $0.01125, a read call (1000 x 0.5 + 5000) / 1e6."""
    spec = REGISTRY.model("claude-opus-4-6")
    pair = [instances()[0]]
    calls = {"pointwise": 3, "pairwise_per_order": 3}
    rows = judge_requests(pair, "reference", spec, DECODING, calls, False, prompt_caching=True)
    plain = judge_requests(pair, "reference", spec, DECODING, calls, False)
    assert all(json.loads(row["cache_control"]) == {"type": "ephemeral"} for row in rows)
    assert {r["request_id"] for r in rows}.isdisjoint(r["request_id"] for r in plain)
    failures, records = send(loopback, spec, rows, tmp_path, monkeypatch, concurrency=1)
    assert failures == 0
    ids = {row["request_id"] for row in rows}
    sent = [body for _, rid, body in loopback.bodies if rid in ids]
    assert len(sent) == 6 and all(body["cache_control"] == {"type": "ephemeral"} for body in sent)
    by_id = {record["request_id"]: record for record in records}
    counts = [
        (
            by_id[r["request_id"]]["cache_creation_tokens"],
            by_id[r["request_id"]]["cached_input_tokens"],
        )
        for r in rows
    ]
    assert counts == [(1000, 0), (0, 1000), (0, 1000)] * 2
    assert all(by_id[r["request_id"]]["input_tokens"] == 0 for r in rows)
    costs = [by_id[r["request_id"]]["cost_usd"] for r in rows]
    assert costs == pytest.approx([0.01125, 0.0055, 0.0055] * 2)


def test_prompt_caching_leaves_other_apis_untouched():
    pair = [instances()[0]]
    for name in ("gpt-5.1", "gpt-4o"):
        spec = REGISTRY.model(name)
        cached = judge_requests(
            pair, "reference", spec, DECODING, ONE_CALL, False, None, None, None, True
        )
        assert cached == judge_requests(pair, "reference", spec, DECODING, ONE_CALL, False)
        assert all(row["cache_control"] is None for row in cached)


def test_loopback_refuses_malformed_cache_control(loopback, tmp_path, monkeypatch):
    spec = REGISTRY.model("claude-opus-4-6")
    messages = [{"role": "user", "content": "Idea?"}]
    persistent = build_request("c|0", spec, messages, DECODING, cache_control={"type": "x"})
    day = build_request(
        "c|1", spec, messages, DECODING, cache_control={"type": "ephemeral", "ttl": "1d"}
    )
    blocks = [
        {"type": "text", "text": f"part {n}", "cache_control": {"type": "ephemeral"}}
        for n in range(4)
    ]
    five = build_request(
        "c|2",
        spec,
        [{"role": "user", "content": blocks}],
        DECODING,
        cache_control={"type": "ephemeral"},
    )
    failures, records = send(loopback, spec, [persistent, day, five], tmp_path, monkeypatch, 0)
    errors = sorted(record["error"] for record in records)
    assert failures == 3 and all(error.startswith("BadRequestError") for error in errors)
    assert any("cache_control.type: Input should be 'ephemeral'" in e for e in errors)
    assert any("cache_control.ttl: Input should be '5m' or '1h'" in e for e in errors)
    assert any(
        "A maximum of 4 blocks with cache_control may be provided. Found 5." in e for e in errors
    )


def test_an_empty_answer_is_asked_again_up_to_three_calls(loopback, tmp_path, monkeypatch):
    """Empty twice, then answered: three calls, their tokens and cost added up. Empty three
    times: the empty text is the answer (not a failure) after three calls."""
    spec = REGISTRY.model("claude-opus-4-6")
    first = build_request("empty|0", spec, [{"role": "user", "content": "Idea?"}], DECODING)
    loopback.empty = 2
    failures, records = send(loopback, spec, [first], tmp_path, monkeypatch)
    assert failures == 0 and records[0]["text"] == ANSWER
    assert (records[0]["input_tokens"], records[0]["output_tokens"]) == (3000, 600)
    assert records[0]["cost_usd"] == pytest.approx(3 * (1000 * 5 + 200 * 25) / 1e6)
    second = build_request("empty|1", spec, [{"role": "user", "content": "Idea 2?"}], DECODING)
    loopback.empty = 4
    failures, records = send(loopback, spec, [second], tmp_path, monkeypatch)
    assert failures == 0 and records[-1]["text"] == "" and records[-1]["error"] is None
    sent = [rid for _, rid, _ in loopback.bodies]
    assert loopback.empty == 1 and sent.count(second["request_id"]) == 3
    loopback.empty = 0


def test_responses_calls_ask_for_the_reasoning_summary_and_answer_with_the_message_only(
    loopback, tmp_path, monkeypatch
):
    spec = REGISTRY.model("gpt-5.4")
    pair = [instances()[0]]
    rows = judge_requests(
        pair, "reference", spec, DECODING, ONE_CALL, False, reasoning_summary="auto"
    )
    plain = judge_requests(pair, "reference", spec, DECODING, ONE_CALL, False)
    assert [row["reasoning_summary"] for row in rows] == ["auto", "auto"]
    assert {r["request_id"] for r in rows}.isdisjoint(r["request_id"] for r in plain)
    claude = REGISTRY.model("claude-opus-4-6")
    assert judge_requests(
        pair, "reference", claude, DECODING, ONE_CALL, False, reasoning_summary="auto"
    ) == judge_requests(pair, "reference", claude, DECODING, ONE_CALL, False)
    messages = [{"role": "user", "content": "Idea?"}]
    short = build_request(
        "s|0", spec, messages, {**DECODING, "reasoning_effort": "high"}, reasoning_summary="short"
    )
    failures, records = send(loopback, spec, [*rows, short], tmp_path, monkeypatch)
    by_id = {record["request_id"]: record for record in records}
    assert failures == 1 and "Supported values are: 'auto'" in by_id[short["request_id"]]["error"]
    assert all(by_id[row["request_id"]]["text"] == ANSWER for row in rows)
    sent = [body for _, rid, body in loopback.bodies if rid in {r["request_id"] for r in rows}]
    assert [body["reasoning"] for body in sent] == [{"effort": "high", "summary": "auto"}] * 2
