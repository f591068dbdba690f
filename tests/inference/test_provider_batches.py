"""Batch execution of hosted models against the providers' documented batch endpoints.

The inference job submits through the official SDKs to ``tests/loopback_api.py`` (OpenAI's Batch
API and Anthropic's Message Batches, each request checked by the rules of the live calls);
costs are worked by hand from the loopback's fixed token counts and the registry's prices.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import time
from pathlib import Path

import anthropic
import openai
import pandas as pd
import pytest
from conftest import loopback_registry
from loopback_api import INPUT_TOKENS, OUTPUT_TOKENS, LoopbackAPI

from noveval.core.logs import log_to
from noveval.core.registry import RegistryError, load_registry
from noveval.inference.engines.journal import read_records
from noveval.inference.job import FailedCallsError, run_inference
from noveval.inference.requests import build_request

CELL = "pairwise/human-only/reference"
DECODING = {"max_tokens": 8192, "reasoning_effort": "high"}
# USD per call from the loopback's 1,000 input and 200 output tokens (models.yaml prices):
# gpt-5.4 at $2.50 / $15 per million: 0.0025 + 0.003 = 0.0055 live;
# claude-opus-4-6 at $5 / $25 per million: 0.005 + 0.005 = 0.01 live; a batch halves both.
LIVE_COST = {"gpt-5.4": 0.0055, "claude-opus-4-6": 0.01}
BATCH_COST = {"gpt-5.4": 0.00275, "claude-opus-4-6": 0.005}
CREATE_PATH = {"gpt-5.4": "/v1/batches", "claude-opus-4-6": "/v1/messages/batches"}


@pytest.fixture(scope="module")
def batch_loopback():
    loopback = LoopbackAPI()
    loopback.thread.start()
    yield loopback
    loopback.shutdown()
    loopback.server_close()


@pytest.fixture()
def server(batch_loopback):
    """A loopback server of this module's own (these tests hold and fail its batches), with
    nothing recorded."""
    for record in ("bodies", "batch_lines", "files", "batches", "message_batches"):
        getattr(batch_loopback, record).clear()
    batch_loopback.hold_batches = False
    batch_loopback.failing_items = set()
    return batch_loopback


def settings(model: str) -> dict:
    return {
        "concurrency": 2,
        "request_timeout_s": 30,
        "retry_for": 16,
        "server_start_timeout_s": 10,
        "failure_budget": 0,
        "batch_api": [model],
        "batch_poll_s": 0.1,
        "batch_retries": 2,
    }


def job(tmp_path: Path, server: LoopbackAPI, model: str, calls: int = 3) -> dict:
    """run_inference's arguments for one cell of ``calls`` judge calls of ``model``."""
    registry = loopback_registry(tmp_path / "models.yaml", server, model)
    spec = load_registry(registry).model(model)
    rows = [
        build_request(f"pair-{n}", spec, [{"role": "user", "content": f"Idea {n}?"}], DECODING)
        for n in range(calls)
    ]
    model_folder = tmp_path / "results" / "judges" / "release" / model
    requests = model_folder / CELL / "requests.parquet"
    requests.parent.mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(requests, index=False)
    return {
        "requests_paths": [str(requests)],
        "responses_path": str(model_folder / "responses" / "cells" / "1-of-1.parquet"),
        "model": model,
        "registry_path": str(registry),
        "cache_dir": str(tmp_path / "cache"),
        "settings": settings(model),
        "log_path": str(tmp_path / "infer.log"),
        "failures_path": str(tmp_path / "failures.json"),
        "job": f"judges/release/{model}/batch-0",
    }


def journal_records(arguments: dict) -> list[dict]:
    folder = Path(arguments["cache_dir"]) / arguments["model"]
    return [record for path in folder.glob("*.jsonl") for record in read_records(path)]


def posts(server: LoopbackAPI, path: str) -> int:
    return sum(1 for sent, _, _ in server.bodies if sent == path)


def logged_inference(arguments: dict, log_path: Path) -> None:
    with log_to(log_path):
        run_inference(**arguments)


def wait_for(condition, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_killed_batch_job_resumes_the_same_batch(tmp_path, server, monkeypatch):
    """Submit, kill the job while it polls, rerun: one batch, every call answered at batch
    price."""
    monkeypatch.setenv("NOVEVAL_TEST_KEY", "sk-loopback")
    arguments = job(tmp_path, server, "gpt-5.4")
    server.hold_batches = True
    # The job in a process of its own (forked: no second import), killed while it polls: its
    # batch's id is journaled and the batch has been retrieved twice.
    process = multiprocessing.get_context("fork").Process(
        target=logged_inference, args=(arguments, tmp_path / "killed.log")
    )
    process.start()
    try:
        wait_for(lambda: sum(path.startswith("/v1/batches/") for path, _, _ in server.bodies) >= 2)
    finally:
        process.kill()
        process.join()
    assert process.exitcode == -signal.SIGKILL  # killed while polling, not ended
    batches = Path(arguments["cache_dir"]) / "gpt-5.4" / "batches"
    submitted = [e for p in batches.glob("*.jsonl") for e in read_records(p)]
    assert [event["event"] for event in submitted] == ["submitted"]
    assert not journal_records(arguments)  # nothing answered yet
    assert "in_progress: 0 answered, 0 failed of 3" in (tmp_path / "killed.log").read_text()

    server.hold_batches = False
    run_inference(**arguments)

    assert posts(server, "/v1/files") == posts(server, "/v1/batches") == 1
    responses = pd.read_parquet(arguments["responses_path"])
    rows = pd.read_parquet(arguments["requests_paths"][0])
    assert sorted(responses["request_id"]) == sorted(rows["request_id"])
    assert responses["batch"].all() and responses["error"].isna().all()
    assert (responses["input_tokens"] == INPUT_TOKENS).all()
    assert (responses["output_tokens"] == OUTPUT_TOKENS).all()
    assert responses["cost_usd"].tolist() == pytest.approx([BATCH_COST["gpt-5.4"]] * 3)
    assert BATCH_COST["gpt-5.4"] == pytest.approx(LIVE_COST["gpt-5.4"] / 2)
    assert {record["request_id"] for record in journal_records(arguments)} == set(
        rows["request_id"]
    )
    events = [e["event"] for p in batches.glob("*.jsonl") for e in read_records(p)]
    assert events == ["submitted", "collected"]


def test_batch_requests_are_the_authors(tmp_path, server, monkeypatch):
    """OpenAI: a JSON-lines file of chat completions with max_completion_tokens and
    reasoning_effort, even for a Responses-API model (the authors' build_openai_chat_body);
    Anthropic: the Messages parameters (build_anthropic_message_params). The custom id is the
    request id."""
    monkeypatch.setenv("NOVEVAL_TEST_KEY", "sk-loopback")
    messages = [{"role": "user", "content": "Idea 0?"}]
    row = {}
    for model in ("gpt-5.4", "claude-opus-4-6"):
        (tmp_path / model).mkdir()
        arguments = job(tmp_path / model, server, model, calls=1)
        run_inference(**arguments)
        row[model] = pd.read_parquet(arguments["requests_paths"][0]).iloc[0]
    (openai_line,) = [
        json.loads(text)
        for stored in server.files.values()
        if stored[0]["purpose"] == "batch"
        for text in stored[1].decode().splitlines()
    ]
    assert openai_line == {
        "custom_id": row["gpt-5.4"]["request_id"],
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": "gpt-5.4",
            "max_completion_tokens": 8192,
            "messages": messages,
            "reasoning_effort": "high",
        },
    }
    ((_, batch_requests, _),) = server.message_batches.values()
    assert batch_requests == [
        {
            "custom_id": row["claude-opus-4-6"]["request_id"],
            "params": {
                "model": "claude-opus-4-6",
                "max_tokens": 8192,
                "messages": messages,
                "output_config": {"effort": "high"},
            },
        }
    ]


@pytest.mark.parametrize("model", ["gpt-5.4", "claude-opus-4-6"])
def test_failed_items_are_resubmitted_alone(model, tmp_path, server, monkeypatch):
    monkeypatch.setenv("NOVEVAL_TEST_KEY", "sk-loopback")
    arguments = job(tmp_path, server, model)
    rows = pd.read_parquet(arguments["requests_paths"][0])
    failing = rows["request_id"].iloc[1]
    server.failing_items = {failing}
    run_inference(**arguments)

    assert posts(server, CREATE_PATH[model]) == 2
    batch_ids = list(dict.fromkeys(batch_id for batch_id, _, _ in server.batch_lines))
    resubmitted = [cid for batch_id, cid, _ in server.batch_lines if batch_id == batch_ids[1]]
    assert resubmitted == [failing]
    responses = pd.read_parquet(arguments["responses_path"])
    assert responses["error"].isna().all()
    assert responses["cost_usd"].sum() == pytest.approx(3 * BATCH_COST[model])
    failures = [r for r in journal_records(arguments) if r["error"]]
    assert [r["request_id"] for r in failures] == [failing]
    assert "500" in failures[0]["error"] or "api_error" in failures[0]["error"]


def test_a_refused_item_is_not_resubmitted(tmp_path, server, monkeypatch):
    """A call the API refuses as invalid fails for good in one batch: the job fails naming it."""
    monkeypatch.setenv("NOVEVAL_TEST_KEY", "sk-loopback")
    arguments = job(tmp_path, server, "gpt-5.4", calls=2)
    path = arguments["requests_paths"][0]
    rows = pd.read_parquet(path)
    rows.loc[0, "reasoning_effort"] = "minimal"  # gpt-5.4 takes none to xhigh
    rows.to_parquet(path, index=False)
    with pytest.raises(FailedCallsError, match="'reasoning_effort' does not support 'minimal'"):
        run_inference(**arguments)
    assert posts(server, "/v1/batches") == 1
    assert not Path(arguments["responses_path"]).exists()


def test_batch_api_setting(tmp_path, server):
    registry = load_registry(loopback_registry(tmp_path / "models.yaml", server))
    from noveval.inference.engines.provider_batches import uses_batch_api

    assert uses_batch_api(registry, "gpt-5.4", True)
    assert not uses_batch_api(registry, "smollm2-135m", True)  # true: the hosted models only
    assert uses_batch_api(registry, "claude-opus-4-6", ["claude-opus-4-6"])
    assert not uses_batch_api(registry, "gpt-5.4", ["claude-opus-4-6"])
    assert not uses_batch_api(registry, "gpt-5.4", False)
    with pytest.raises(RegistryError, match="inference.batch_api lists 'smollm2-135m'"):
        uses_batch_api(registry, "gpt-5.4", ["smollm2-135m"])
    with pytest.raises(RegistryError, match="unknown model 'gpt-6'"):
        uses_batch_api(registry, "gpt-5.4", ["gpt-6"])


def test_loopback_rejects_what_the_batch_documentation_forbids(server):
    client = openai.OpenAI(base_url=server.base_url("chat"), api_key="sk-loopback", max_retries=0)
    line = {
        "custom_id": "a",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]},
    }
    with pytest.raises(openai.BadRequestError, match="Must be .jsonl"):
        client.files.create(file=("requests.json", b"{}", "application/json"), purpose="batch")
    good = client.files.create(
        file=("requests.jsonl", (json.dumps(line) + "\n").encode(), "application/jsonl"),
        purpose="batch",
    )
    with pytest.raises(openai.BadRequestError, match="completion_window"):
        client.batches.create(
            input_file_id=good.id, endpoint="/v1/chat/completions", completion_window="1h"
        )
    twice = (json.dumps(line) + "\n") * 2
    duplicate = client.files.create(
        file=("requests.jsonl", twice.encode(), "application/jsonl"), purpose="batch"
    )
    batch = client.batches.create(
        input_file_id=duplicate.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    assert batch.status == "failed"
    assert batch.errors.data[0].code == "duplicate_custom_id"
    wrong_url = client.files.create(
        file=("requests.jsonl", (json.dumps(line) + "\n").encode(), "application/jsonl"),
        purpose="batch",
    )
    batch = client.batches.create(
        input_file_id=wrong_url.id, endpoint="/v1/responses", completion_window="24h"
    )
    assert batch.status == "failed" and batch.errors.data[0].code == "invalid_url"

    claude = anthropic.Anthropic(
        base_url=server.base_url("messages"), api_key="sk-loopback", max_retries=0
    )
    params = {"model": "claude-opus-4-6", "max_tokens": 8, "messages": [line["body"]["messages"]]}
    with pytest.raises(anthropic.BadRequestError, match="should match pattern"):
        claude.messages.batches.create(requests=[{"custom_id": "a.1", "params": params}])
    with pytest.raises(anthropic.BadRequestError, match="Duplicate custom_id"):
        claude.messages.batches.create(requests=[{"custom_id": "a", "params": params}] * 2)
