"""One async client for every engine and provider API (``noveval.inference.engines.providers``,
found by the endpoint's API).

Bounded concurrency; a transient failure (rate limit, server error, overloaded, timeout, dropped
connection) retried for up to ``retry_for_s`` seconds a call (tenacity), after the wait the
provider's ``retry-after`` header asks for or else an exponential, jittered backoff (so that a
provider's outage of about that long is ridden out); calls paced to the model's requests- and
tokens-per-minute limits where the registry gives them (aiolimiter); an empty answer asked again
(the judge study's client: 3 attempts in all); token counts, latency and cost per call (every
attempt's tokens). Every finished call, answered or failed, goes to the job's journal the moment
it arrives.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from aiolimiter import AsyncLimiter
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_delay,
    wait_exponential_jitter,
)

from noveval.core.pricing import Usage
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.providers import Endpoint, Provider, provider_for
from noveval.inference.engines.providers.base import present
from noveval.inference.workloads import PlanSettings, request_tokens

__all__ = ["ClientSettings", "Endpoint", "retry_window", "send_requests"]
COUNTS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_creation_tokens")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClientSettings:
    concurrency: int = 4
    request_timeout_s: float = 600.0
    retry_for_s: float = 3600.0  # how long a call's transient failures are retried
    empty_answer_attempts: int = 3  # calls of a request whose answers stay empty
    requests_per_minute: float | None = None  # the provider's limits for the model (registry)
    tokens_per_minute: float | None = None


def counted_tokens(request: dict) -> int:
    """What a call counts against a tokens-per-minute limit, as providers estimate it before
    answering: its prompt as the compute plan estimates it (``request_tokens``) plus its output
    cap."""
    cap = request.get("max_tokens")
    return request_tokens(request["messages"], PlanSettings()) + (int(cap) if present(cap) else 0)


class Pace:
    """Calls paced to a model's requests- and tokens-per-minute limits (leaky buckets of a
    minute; none where the registry gives no limit), every attempt counted; ``waited``: the
    seconds calls spent waiting for them."""

    def __init__(self, settings: ClientSettings):
        self.requests = _limiter(settings.requests_per_minute)
        self.tokens = _limiter(settings.tokens_per_minute)
        self.waited = 0.0

    async def wait(self, request: dict) -> None:
        began = time.monotonic()
        if self.requests:
            await self.requests.acquire()
        if self.tokens:
            await self.tokens.acquire(min(self.tokens.max_rate, counted_tokens(request)))
        self.waited += time.monotonic() - began


def _limiter(per_minute: float | None) -> AsyncLimiter | None:
    return AsyncLimiter(per_minute, 60) if per_minute else None


LOCAL_RETRY_FOR_S = 60.0  # a local server that keeps failing is down, not busy: fail the job


def retry_window(engine: str, retry_for_s: float) -> float:
    """Seconds a call to ``engine`` is retried for: ``retry_for_s`` (config ``inference.
    retry_for``) for hosted APIs, at most :data:`LOCAL_RETRY_FOR_S` for a local server."""
    return retry_for_s if engine == "api" else min(retry_for_s, LOCAL_RETRY_FOR_S)


BACKOFF = wait_exponential_jitter(max=60)  # where the provider names no wait


def retry_after_s(error: BaseException) -> float | None:
    """The wait a failed call's response asks for: ``retry-after-ms``, else ``retry-after`` in
    seconds or as an HTTP date (both SDKs' errors carry the response); None if it names none."""
    headers = getattr(getattr(error, "response", None), "headers", None) or {}
    if (milliseconds := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    if (value := headers.get("retry-after")) is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def retry_wait(state: RetryCallState) -> float:
    """The provider's ``retry-after`` where it gives one, else the jittered backoff."""
    asked = retry_after_s(state.outcome.exception())
    return BACKOFF(state) if asked is None else asked


async def _call(client, provider: Provider, request: dict, settings, pace: Pace):
    arguments = provider.arguments(request)

    def waiting(state: RetryCallState) -> None:
        log.warning(
            "request %s: %s, retry %d in %.1f s (retried for %.0f s of %.0f s)",
            request["request_id"],
            type(state.outcome.exception()).__name__,
            state.attempt_number,
            state.upcoming_sleep,
            state.seconds_since_start,
            settings.retry_for_s,
        )

    async for attempt in AsyncRetrying(
        retry=retry_if_exception_type(provider.retryable()),
        stop=stop_after_delay(settings.retry_for_s),
        wait=retry_wait,
        reraise=True,
        before_sleep=waiting,
    ):
        with attempt:
            await pace.wait(request)
            return await provider.create(client, arguments)


async def _answer(client, provider: Provider, request: dict, settings, pace: Pace):
    """Text, finish reason and token counts of a request, asked again while its answer is
    empty (``settings.empty_answer_attempts`` calls at most); the counts are every call's."""
    total = Usage()
    for attempt in range(1, settings.empty_answer_attempts + 1):
        completion = await _call(client, provider, request, settings, pace)
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
        pace = Pace(settings)
        started = time.monotonic()
        failures = 0
        completed = 0

        async def one(request: dict) -> None:
            nonlocal failures, completed
            async with gate:
                began = time.monotonic()
                record = {"request_id": request["request_id"], "item_id": request["item_id"]}
                try:
                    text, finish_reason, usage = await _answer(
                        client, provider, request, settings, pace
                    )
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
        if pace.waited:
            log.info(
                "calls waited %.1f s in all for the rate limits (%s requests, %s tokens a minute)",
                pace.waited,
                settings.requests_per_minute or "no limit of",
                settings.tokens_per_minute or "no limit of",
            )
        return failures

    return asyncio.run(send_all())
