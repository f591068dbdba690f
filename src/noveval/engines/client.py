"""One async client for every engine and provider API (``noveval.engines.providers``).

Bounded concurrency, retries with exponential backoff on rate limits, server errors and
timeouts (tenacity), token counts, latency and cost per call. Every finished call, answered or
failed, goes to the job's journal the moment it arrives.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from noveval.engines import providers
from noveval.engines.journal import Journal
from noveval.engines.providers import Endpoint
from noveval.pricing import Usage

__all__ = ["ClientSettings", "Endpoint", "send_requests"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClientSettings:
    concurrency: int = 4
    request_timeout_s: float = 600.0
    max_retries: int = 5


async def _call(client, endpoint: Endpoint, request: dict, settings):
    arguments = providers.arguments(endpoint, request)
    async for attempt in AsyncRetrying(
        retry=retry_if_exception_type(providers.RETRYABLE),
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
            return await providers.create(client, endpoint, arguments)


async def _send_all(
    requests: list[dict],
    endpoint: Endpoint,
    journal: Journal,
    settings: ClientSettings,
    price: Callable[[Usage], float],
) -> int:
    client = providers.client(endpoint, settings.request_timeout_s)
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
            except providers.ERRORS as error:
                failures += 1
                record.update(_failed(error, time.monotonic() - began))
            else:
                text, finish_reason, usage = providers.answer(endpoint, completion)
                record.update(
                    _answered(text, finish_reason, usage, time.monotonic() - began, price)
                )
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


def _answered(
    text: str,
    finish_reason: str | None,
    usage: Usage,
    latency_s: float,
    price: Callable[[Usage], float],
) -> dict:
    return {
        "text": text,
        "finish_reason": finish_reason,
        **usage_record(usage),
        "latency_s": round(latency_s, 3),
        "cost_usd": price(usage),
        "error": None,
    }


def usage_record(usage: Usage) -> dict:
    """A call's token counts and batch flag as journal fields."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "cache_creation_tokens": usage.cache_creation_tokens,
        "batch": usage.batch,
    }


def _failed(error: Exception, latency_s: float) -> dict:
    return {
        "text": None,
        "finish_reason": None,
        **usage_record(Usage()),
        "latency_s": round(latency_s, 3),
        "cost_usd": 0.0,
        "error": f"{type(error).__name__}: {error}",
    }


def send_requests(
    requests: list[dict],
    endpoint: Endpoint,
    journal: Journal,
    settings: ClientSettings,
    price: Callable[[Usage], float],
) -> int:
    """Send every request, journaling each answer; returns how many calls failed for good."""
    return asyncio.run(_send_all(requests, endpoint, journal, settings, price))
