"""A provider storm: 30% of calls answered 429/5xx by a seeded stand-in, ten times over.

Every call is answered in the end (retried for ``inference.retry_for``, after the wait the
provider's ``retry-after-ms`` asks for or a jittered backoff), a 401 fails at once, and the
wait is read from either header form. Calls are paced to the registry's rate limits.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx2
import openai
import pytest
from conftest import REPO
from loopback_api import LoopbackAPI, Storm
from tenacity import wait_exponential_jitter

from noveval.core.registry import load_registry
from noveval.inference.engines import client
from noveval.inference.engines.client import (
    LOCAL_RETRY_FOR_S,
    ClientSettings,
    counted_tokens,
    retry_after_s,
    retry_window,
    send_requests,
)
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.provider_batches import sdk_retries
from noveval.inference.engines.servers import serve
from noveval.inference.requests import build_request

REGISTRY = load_registry(REPO / "config" / "models.yaml")
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 96}
CALLS = 40
STORMS = 10


@pytest.fixture
def stand_in():
    """A loopback server of its own: the storm's failures and counts touch no other test."""
    server = LoopbackAPI()
    server.thread.start()
    yield server
    server.shutdown()
    server.server_close()


def send(server, spec, rows, folder, key="sk-loopback", retry_for=120.0):
    pointed = replace(spec, base_url=server.base_url(spec.api))
    settings = ClientSettings(
        8, 30, retry_for, requests_per_minute=spec.requests_per_minute,
        tokens_per_minute=spec.tokens_per_minute,
    )  # fmt: skip
    with Journal(folder / spec.name, "job") as journal:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(spec.api_key_env, key)
            with serve(pointed, folder / "serve.log") as endpoint:
                failures = send_requests(rows, endpoint, journal, settings, spec.cost_usd)
    return failures, read_records(journal.path)


def requests_for(spec, name: str, count: int) -> list[dict]:
    return [
        build_request(
            f"{name}-{n}", spec, [{"role": "user", "content": f"{name}: idea {n}?"}], DECODING
        )
        for n in range(count)
    ]


@pytest.mark.parametrize("model", ["gpt-4o", "claude-opus-4-6"])
def test_every_call_is_answered_through_ten_storms(stand_in, model, tmp_path, caplog, monkeypatch):
    # The backoff where the stand-in names no wait (500, 529), a hundred times shorter.
    monkeypatch.setattr(
        client, "BACKOFF", wait_exponential_jitter(multiplier=0.01, max=0.6, jitter=0.01)
    )
    spec = REGISTRY.model(model)
    struck = 0
    for seed in range(STORMS):
        stand_in.storm = Storm(share=0.3, seed=seed)
        rows = requests_for(spec, f"s{seed}", CALLS)
        with caplog.at_level(logging.WARNING, logger="noveval.inference.engines.client"):
            failures, records = send(stand_in, spec, rows, tmp_path / str(seed))
        assert failures == 0, [r["error"] for r in records if r["error"]]
        assert len(records) == CALLS and all(r["text"] for r in records)
        storm = sum(stand_in.storm.struck.values())
        ids = {row["request_id"] for row in rows}
        sent = sum(request_id in ids for _, request_id, _ in stand_in.bodies)
        assert sent == CALLS + storm  # each failure retried once more
        struck += storm
    # About 30% of the first calls and of their retries fail: at least a fifth of all calls.
    assert struck >= STORMS * CALLS * 0.2
    assert "retry 1 in 0.0 s" in caplog.text  # the stand-in's retry-after-ms: 10


def test_a_refused_key_fails_at_once(stand_in, tmp_path):
    stand_in.key = "sk-the-right-one"
    spec = REGISTRY.model("gpt-4o")
    row = build_request("k", spec, [{"role": "user", "content": "Idea?"}], DECODING)
    failures, records = send(stand_in, spec, [row], tmp_path, key="sk-wrong")
    assert failures == 1 and records[0]["error"].startswith("AuthenticationError")
    assert stand_in.refused == 1  # sent once, never retried


def error_with(headers: dict) -> openai.RateLimitError:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx2.Response(429, headers=headers, request=request)
    return openai.RateLimitError("rate limited", response=response, body=None)


def test_the_wait_is_the_one_the_provider_asks_for():
    assert retry_after_s(error_with({"retry-after-ms": "1500"})) == 1.5
    assert retry_after_s(error_with({"retry-after": "7"})) == 7.0
    later = datetime.now(UTC) + timedelta(seconds=30)
    assert (
        28 <= retry_after_s(error_with({"retry-after": format_datetime(later, usegmt=True)})) <= 30
    )
    assert retry_after_s(error_with({})) is None
    assert (
        retry_after_s(openai.APIConnectionError(request=httpx2.Request("GET", "http://x"))) is None
    )


def test_hosted_calls_are_retried_for_the_configured_time_and_local_ones_a_minute():
    assert retry_window("api", 3600) == 3600
    assert retry_window("llamacpp", 3600) == LOCAL_RETRY_FOR_S == 60
    assert retry_window("vllm", 0) == 0
    assert sdk_retries(3600) == 450 and sdk_retries(0) == 1  # 8-s waits at most


def test_calls_are_paced_to_the_registry_rate_limits(stand_in, tmp_path, caplog):
    """A minute's limit lets its first minute's calls go at once (a full bucket), then one call
    every 60 / limit seconds: 126 calls at 120 a minute take at least 6 x 0.5 s."""
    spec = replace(REGISTRY.model("gpt-4o"), requests_per_minute=120)
    rows = requests_for(spec, "paced", 126)
    began = time.monotonic()
    with caplog.at_level(logging.INFO, logger="noveval.inference.engines.client"):
        failures, records = send(stand_in, spec, rows, tmp_path)
    assert failures == 0 and len(records) == 126
    assert time.monotonic() - began >= 6 * 0.5 * 0.9
    assert "for the rate limits (120 requests, no limit of tokens a minute)" in caplog.text


def test_a_call_counts_its_prompt_and_its_output_cap_against_the_tokens_limit():
    spec = REGISTRY.model("gpt-4o")
    (row,) = requests_for(spec, "t", 1)
    # "t: idea 0?": 10 characters, 3 tokens at 4 a token, and 4 of chat framing
    assert counted_tokens(row) == 3 + 4 + 96
    assert counted_tokens({**row, "max_tokens": None}) == 3 + 4
