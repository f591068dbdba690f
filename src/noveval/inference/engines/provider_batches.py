"""Hosted calls through the providers' batch APIs, at half price, as the judge study ran them.

Each provider gives its batch API (``Provider.batches``: OpenAI's Batch API for chat and
Responses, Anthropic's Message Batches for Messages), the body a call has there
(``Provider.batch_body``) and how its results read (``Provider.batch_answer``). A call's custom id
is its request id.

A job submits its pending calls and journals each batch's id before it waits (so a killed job,
rerun, polls the same batch and never submits it twice; only a kill in the instant between the
provider's answer to the create call and the journal write loses the id), polls with progress in
the log, and journals every answer at batch price (``Usage(batch=True)``) and every failed call
with its error. Calls that failed for a passing reason (a server error, expiry, cancellation)
are resubmitted alone, at most ``retries`` times; a call the API refused as invalid is not.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from noveval.core.pricing import Usage
from noveval.core.registry import Registry, RegistryError
from noveval.inference.engines.client import usage_record
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.providers import (
    BatchApi,
    BatchFailed,
    Endpoint,
    Outcome,
    Provider,
    provider_for,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchSettings:
    poll_interval_s: float = 60.0
    retries: int = 2  # resubmissions of the calls that failed for a passing reason
    request_timeout_s: float = 600.0
    max_retries: int = 5  # of each submit, poll and download call (the SDK's own retries)

    @classmethod
    def of(cls, inference: dict) -> BatchSettings:
        """The settings from the config's ``inference`` section."""
        return cls(
            poll_interval_s=inference.get("batch_poll_s", cls.poll_interval_s),
            retries=inference.get("batch_retries", cls.retries),
            request_timeout_s=inference["request_timeout_s"],
            max_retries=sdk_retries(inference["retry_for"]),
        )


SDK_BACKOFF_CAP_S = 8.0  # the longest wait between the SDKs' own retries (both SDKs)


def sdk_retries(retry_for_s: float) -> int:
    """How many of the SDK's own retries last at least ``retry_for_s`` seconds (config
    ``inference.retry_for``): the SDKs take a count, and each of their waits is at most
    :data:`SDK_BACKOFF_CAP_S` unless the provider's retry-after asks for more."""
    return max(1, math.ceil(retry_for_s / SDK_BACKOFF_CAP_S))


def uses_batch_api(registry: Registry, model: str, setting: bool | list[str] | None) -> bool:
    """Whether ``model``'s calls go through its provider's batch API under the config's
    ``inference.batch_api``: true (every hosted model of the run), a list of model names, or
    false / absent. A listed model that is unknown or not hosted is an error."""
    if isinstance(setting, list):
        for name in setting:
            spec = registry.model(name)
            if spec.engine != "api":
                raise RegistryError(
                    f"inference.batch_api lists '{name}', a local {spec.engine} model: only "
                    "hosted APIs (engine: api) have a batch endpoint"
                )
        return model in setting
    return bool(setting) and registry.model(model).engine == "api"


def send_batches(
    requests: list[dict],
    endpoint: Endpoint,
    journal: Journal,
    settings: BatchSettings,
    price: Callable[[Usage], float],
) -> None:
    """Answer ``requests`` (request rows no journal has answered) through the provider's batch
    API, journaling every answer and failure; batches this job submitted before and never
    collected are collected first."""
    provider = provider_for(endpoint)
    api = provider.batches(settings)
    wanted = {request["request_id"]: request for request in requests}
    refused: set[str] = set()
    rounds = 0
    for event in journal.open_batches():
        log.info("%s batch %s was submitted before: polling it", api.name, event["batch_id"])
        refused |= _collect(api, event, journal, provider, settings, price)
        rounds = 1
    while rounds <= settings.retries:
        finished = journal.finished()
        pending = [r for rid, r in wanted.items() if rid not in finished and rid not in refused]
        if not pending:
            return
        if rounds:
            log.info("resubmitting the %d calls that failed or were never sent", len(pending))
        events = [
            _submit(api, chunk, journal, provider) for chunk in _chunks(api, pending, provider)
        ]
        for event in events:
            refused |= _collect(api, event, journal, provider, settings, price)
        rounds += 1


def _chunks(api: BatchApi, requests: list[dict], provider: Provider) -> Iterator[list[dict]]:
    """The calls in batches within the provider's limits of requests and bytes."""
    most, most_bytes = api.limits
    chunk, size = [], 0
    for request in requests:
        length = len(json.dumps(provider.batch_body(request))) + 200  # and its envelope
        if chunk and (len(chunk) == most or size + length > most_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(request)
        size += length
    if chunk:
        yield chunk


def _submit(api: BatchApi, calls: list[dict], journal: Journal, provider: Provider) -> dict:
    """Submit one batch and journal its id before anything waits on it."""
    submitted = api.submit({call["request_id"]: provider.batch_body(call) for call in calls})
    event = {
        "event": "submitted",
        "provider": api.name,
        **submitted,
        "submitted_at": time.time(),
        "calls": {call["request_id"]: call["item_id"] for call in calls},
    }
    journal.append_batch_event(event)
    log.info("submitted %s batch %s: %d calls", api.name, event["batch_id"], len(calls))
    return event


def _collect(
    api: BatchApi,
    event: dict,
    journal: Journal,
    provider: Provider,
    settings: BatchSettings,
    price: Callable[[Usage], float],
) -> set[str]:
    """Wait for a batch to end and journal its results; returns the calls it refused as
    invalid (not worth resubmitting)."""
    batch_id, calls = event["batch_id"], event["calls"]
    shown = None
    while True:
        ended, progress = api.poll(batch_id)
        if progress != shown:
            elapsed = time.time() - event["submitted_at"]
            log.info("batch %s, %.0f s after submission: %s", batch_id, elapsed, progress)
            shown = progress
        if ended:
            break
        time.sleep(settings.poll_interval_s)
    try:
        outcomes = {outcome.request_id: outcome for outcome in api.results(batch_id)}
    except BatchFailed as failed:
        outcomes = {rid: Outcome(rid, error=str(failed)) for rid in calls}
    finished = journal.finished()
    latency_s = round(time.time() - event["submitted_at"], 3)
    refused, answered = set(), 0
    for rid, item_id in calls.items():
        if rid in finished:
            continue  # journaled by an earlier collection that was cut short
        outcome = outcomes.get(rid) or Outcome(rid, error="batch returned no result", passing=True)
        answer = _answer(outcome, provider, latency_s, price)
        journal.append({"request_id": rid, "item_id": item_id, **answer})
        answered += outcome.error is None
        if outcome.error and not outcome.passing:
            refused.add(rid)
    unknown = set(outcomes) - set(calls)
    if unknown:
        log.warning("batch %s: results for unknown custom ids ignored: %s", batch_id, unknown)
    journal.append_batch_event(
        {"event": "collected", "batch_id": batch_id, "answered": answered, "calls": len(calls)}
    )
    log.info("batch %s: %d of %d calls answered", batch_id, answered, len(calls))
    return refused


def _answer(
    outcome: Outcome, provider: Provider, latency_s: float, price: Callable[[Usage], float]
) -> dict:
    """A journal record's answer fields: the text, finish reason and token counts as the
    provider reads them (``Provider.batch_answer``), priced at batch price."""
    if outcome.error:
        return {
            "text": None,
            "finish_reason": None,
            **usage_record(Usage(batch=True)),
            "latency_s": latency_s,
            "cost_usd": 0.0,
            "error": outcome.error,
        }
    text, finish_reason, usage = provider.batch_answer(outcome.completion)
    usage = replace(usage, batch=True)
    return {
        "text": text,
        "finish_reason": finish_reason,
        **usage_record(usage),
        "latency_s": latency_s,
        "cost_usd": price(usage),
        "error": None,
    }
