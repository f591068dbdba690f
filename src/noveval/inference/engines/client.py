"""One async client for every engine and provider API (``noveval.inference.engines.providers``,
found by the endpoint's API).

Bounded concurrency, retries with exponential backoff on rate limits, server errors and
timeouts (tenacity), an empty answer asked again (the judge study's client: 3 attempts in all),
token counts, latency and cost per call (every attempt's tokens). Every finished call, answered or
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

from noveval.core.pricing import Usage
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.providers import Endpoint, Provider, provider_for

__all__ = ["ClientSettings", "Endpoint", "send_requests"]
COUNTS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_creation_tokens")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClientSettings:
    concurrency: int = 4
    request_timeout_s: float = 600.0
    max_retries: int = 5
    empty_answer_attempts: int = 3  # calls of a request whose answers stay empty


async def _call(client, provider: Provider, request: dict, settings):
    arguments = provider.arguments(request)
    async for attempt in AsyncRetrying(
        retry=retry_if_exception_type(provider.retryable()),
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
            return await provider.create(client, arguments)


async def _answer(client, provider: Provider, request: dict, settings):
    """Text, finish reason and token counts of a request, asked again while its answer is
    empty (``settings.empty_answer_attempts`` calls at most); the counts are every call's."""
    total = Usage()
    for attempt in range(1, settings.empty_answer_attempts + 1):
        completion = await _call(client, provider, request, settings)
        text, finish_reason, usage = provider.answer(completion)
        total = Usage(
            *(getattr(total, field) + getattr(usage, field) for field in COUNTS),
            batch=usage.batch,
            web_searches=total.web_searches + usage.web_searches,
        )
        if not provider.empty(completion, text):
            break
        if attempt < settings.empty_answer_attempts:
            log.warning("request %s: empty answer, asked again", request["request_id"])
    return text, finish_reason, total


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
    """A call's token counts, batch flag and web searches as journal fields."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "cache_creation_tokens": usage.cache_creation_tokens,
        "batch": usage.batch,
        "web_searches": usage.web_searches,
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

    async def send_all() -> int:
        provider = provider_for(endpoint)
        client = provider.client(settings.request_timeout_s)
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
                    text, finish_reason, usage = await _answer(client, provider, request, settings)
                except provider.errors() as error:
                    failures += 1
                    record.update(_failed(error, time.monotonic() - began))
                else:
                    record.update(
                        _answered(text, finish_reason, usage, time.monotonic() - began, price)
                    )
                    if usage.web_searches:
                        log.info(
                            "request %s: %d web searches", request["request_id"], usage.web_searches
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

    return asyncio.run(send_all())
