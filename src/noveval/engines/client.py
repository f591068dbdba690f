"""One OpenAI-compatible async chat client for every engine.

Bounded concurrency, retries with exponential backoff on rate limits, server errors and
timeouts (tenacity), token counts, latency and cost per call. Every finished call goes to the
job's journal the moment it arrives.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import openai
import pandas as pd
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from noveval.engines.journal import Journal

log = logging.getLogger(__name__)

RETRYABLE = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
)


@dataclass(frozen=True)
class Endpoint:
    """Where a model answers: base URL, key and the name it is served under."""

    base_url: str
    api_key: str
    served_model: str
    extra_body: dict | None = None


@dataclass(frozen=True)
class ClientSettings:
    concurrency: int = 4
    request_timeout_s: float = 600.0
    max_retries: int = 5


async def _call(client: openai.AsyncOpenAI, endpoint: Endpoint, request: dict, settings) -> dict:
    arguments = {
        "model": endpoint.served_model,
        "messages": json.loads(request["messages"]),
        "max_tokens": request["max_tokens"],
        "extra_headers": {"X-Request-Id": request["request_id"]},
    }
    for optional in ("temperature", "seed"):  # null: not sent
        if pd.notna(request.get(optional)):
            arguments[optional] = request[optional]
    if request.get("response_format"):
        arguments["response_format"] = json.loads(request["response_format"])
    extra_body = dict(endpoint.extra_body or {})
    if request.get("reasoning_effort"):  # a per-request setting (the judges' low_reasoning cells)
        extra_body["reasoning_effort"] = request["reasoning_effort"]
    if extra_body:
        arguments["extra_body"] = extra_body
    async for attempt in AsyncRetrying(
        retry=retry_if_exception_type(RETRYABLE),
        stop=stop_after_attempt(settings.max_retries),
        wait=wait_exponential_jitter(initial=1, max=60),
        reraise=True,
        before_sleep=lambda state: log.warning(
            "request %s: %s, retry %d",
            request["request_id"],
            type(state.outcome.exception()).__name__,
            state.attempt_number,
        ),
    ):
        with attempt:
            return await client.chat.completions.create(**arguments)


async def _send_all(
    requests: list[dict],
    endpoint: Endpoint,
    journal: Journal,
    settings: ClientSettings,
    price: Callable[[int, int], float],
) -> int:
    client = openai.AsyncOpenAI(
        base_url=endpoint.base_url,
        api_key=endpoint.api_key,
        timeout=settings.request_timeout_s,
        max_retries=0,
    )
    gate = asyncio.Semaphore(settings.concurrency)
    started = time.monotonic()
    failures = 0
    completed = 0

    async def one(request: dict) -> None:
        nonlocal failures, completed
        async with gate:
            began = time.monotonic()
            record = {"request_id": request["request_id"], "item_id": request["item_id"]}
            try:
                completion = await _call(client, endpoint, request, settings)
            except openai.OpenAIError as error:
                failures += 1
                record.update(_failed(error, time.monotonic() - began))
            else:
                record.update(_answered(completion, time.monotonic() - began, price))
            journal.append(record)
            completed += 1
            if completed % max(1, len(requests) // 10) == 0 or completed == len(requests):
                elapsed = time.monotonic() - started
                log.info(
                    "%d/%d calls done (%.1f s elapsed, about %.0f s left)",
                    completed,
                    len(requests),
                    elapsed,
                    elapsed / completed * (len(requests) - completed),
                )

    try:
        await asyncio.gather(*(one(request) for request in requests))
    finally:
        await client.close()
    return failures


def _answered(completion, latency_s: float, price: Callable[[int, int], float]) -> dict:
    choice = completion.choices[0]
    usage = completion.usage
    input_tokens = usage.prompt_tokens if usage else 0
    output_tokens = usage.completion_tokens if usage else 0
    return {
        "text": choice.message.content or "",
        "finish_reason": choice.finish_reason,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "latency_s": round(latency_s, 3),
        "cost_usd": price(input_tokens, output_tokens),
        "error": None,
    }


def _failed(error: Exception, latency_s: float) -> dict:
    return {
        "text": None,
        "finish_reason": None,
        "input_tokens": 0,
        "output_tokens": 0,
        "latency_s": round(latency_s, 3),
        "cost_usd": 0.0,
        "error": f"{type(error).__name__}: {error}",
    }


def send_requests(
    requests: list[dict],
    endpoint: Endpoint,
    journal: Journal,
    settings: ClientSettings,
    price: Callable[[int, int], float],
) -> int:
    """Send every request, journaling each answer; returns how many calls failed for good."""
    return asyncio.run(_send_all(requests, endpoint, journal, settings, price))
