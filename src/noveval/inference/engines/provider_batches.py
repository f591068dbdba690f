"""Hosted calls through the providers' batch APIs, at half price, as the judge study ran them.

OpenAI's Batch API (and the OpenAI-compatible ones, such as Gemini's): the calls as a JSON-lines
file of chat completions (``/v1/chat/completions``; a Responses-API model's calls carry
``max_completion_tokens`` and ``reasoning_effort`` there, as the authors' ``batch_api.py`` sent
them), uploaded with purpose ``batch`` and run within a 24 h window. Anthropic's Message
Batches: the Messages calls as ``{custom_id, params}``. A call's custom id is its request id.

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
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from noveval.core.pricing import Usage
from noveval.core.registry import Registry, RegistryError
from noveval.inference.engines import providers
from noveval.inference.engines.client import usage_record
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.providers import Endpoint, sdks

log = logging.getLogger(__name__)

OPENAI_ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
# Requests and bytes per batch, below the documented limits (OpenAI: 50,000 and a 200 MB file;
# Anthropic: 100,000 and 256 MB).
LIMITS = {"openai": (50_000, 190 * 2**20), "anthropic": (100_000, 250 * 2**20)}
OPENAI_ENDED = {"completed", "failed", "expired", "cancelled"}


@dataclass(frozen=True)
class BatchSettings:
    poll_interval_s: float = 60.0
    retries: int = 2  # resubmissions of the calls that failed for a passing reason
    request_timeout_s: float = 600.0
    max_retries: int = 5  # of each submit, poll and download call (the SDK's retries)

    @classmethod
    def of(cls, inference: dict) -> BatchSettings:
        """The settings from the config's ``inference`` section."""
        return cls(
            poll_interval_s=inference.get("batch_poll_s", cls.poll_interval_s),
            retries=inference.get("batch_retries", cls.retries),
            request_timeout_s=inference["request_timeout_s"],
            max_retries=inference["max_retries"],
        )


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


def batch_body(endpoint: Endpoint, request: dict) -> dict:
    """The body of one call as a batch request carries it: a chat completion for the OpenAI
    APIs (the model's own token field on chat, ``max_completion_tokens`` otherwise), the
    Messages parameters for Anthropic."""
    if endpoint.api == "responses":
        endpoint = replace(endpoint, api="chat", token_field="max_completion_tokens")
    arguments = providers.arguments(endpoint, request)
    arguments.pop("extra_headers", None)
    extra_body = arguments.pop("extra_body", None) or {}
    return {**arguments, **extra_body}


@dataclass(frozen=True)
class Outcome:
    """One call's result in a batch: an answer of the SDK's type, or an error."""

    request_id: str
    completion: object | None = None
    error: str | None = None
    passing: bool = False  # a failure worth resubmitting


class OpenAIBatches:
    """OpenAI's Batch API: file upload, create, retrieve, output and error files."""

    name = "openai"

    def __init__(self, endpoint: Endpoint, settings: BatchSettings):
        _, openai = sdks()
        self.client = openai.OpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            timeout=settings.request_timeout_s,
            max_retries=settings.max_retries,
        )

    def submit(self, bodies: dict[str, dict]) -> dict:
        lines = "".join(
            json.dumps({"custom_id": rid, "method": "POST", "url": OPENAI_ENDPOINT, "body": body})
            + "\n"
            for rid, body in bodies.items()
        )
        upload = self.client.files.create(
            file=("requests.jsonl", lines.encode("utf-8"), "application/jsonl"), purpose="batch"
        )
        batch = self.client.batches.create(
            input_file_id=upload.id, endpoint=OPENAI_ENDPOINT, completion_window=COMPLETION_WINDOW
        )
        return {"batch_id": batch.id, "input_file_id": upload.id}

    def poll(self, batch_id: str) -> tuple[bool, str]:
        batch = self.client.batches.retrieve(batch_id)
        counts = batch.request_counts
        progress = batch.status
        if counts:
            progress += f": {counts.completed} answered, {counts.failed} failed of {counts.total}"
        return batch.status in OPENAI_ENDED, progress

    def results(self, batch_id: str) -> Iterator[Outcome]:
        batch = self.client.batches.retrieve(batch_id)
        if batch.status == "failed":
            errors = "; ".join(
                f"line {error.line}: {error.message}" for error in batch.errors.data or []
            )
            raise BatchFailed(f"batch {batch_id} failed validation: {errors}")
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                for line in self.client.files.content(file_id).text.splitlines():
                    if line.strip():
                        yield self._outcome(json.loads(line))

    @staticmethod
    def _outcome(result: dict) -> Outcome:
        response = result.get("response") or {}
        status = response.get("status_code")
        if status == 200:
            _, openai = sdks()
            completion = openai.types.chat.ChatCompletion.model_validate(response["body"])
            return Outcome(result["custom_id"], completion=completion)
        error = (response.get("body") or {}).get("error") or result.get("error") or {}
        reason = error.get("code") or error.get("type") or "error"
        return Outcome(
            result["custom_id"],
            error=f"batch request {status or reason}: {error.get('message')}",
            passing=status is None or status == 429 or status >= 500,
        )


class AnthropicBatches:
    """Anthropic's Message Batches: create, retrieve, results."""

    name = "anthropic"

    def __init__(self, endpoint: Endpoint, settings: BatchSettings):
        anthropic, _ = sdks()
        self.client = anthropic.Anthropic(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            timeout=settings.request_timeout_s,
            max_retries=settings.max_retries,
        )

    def submit(self, bodies: dict[str, dict]) -> dict:
        requests = [{"custom_id": rid, "params": body} for rid, body in bodies.items()]
        return {"batch_id": self.client.messages.batches.create(requests=requests).id}

    def poll(self, batch_id: str) -> tuple[bool, str]:
        batch = self.client.messages.batches.retrieve(batch_id)
        counts = batch.request_counts
        progress = (
            f"{batch.processing_status}: {counts.succeeded} answered, {counts.errored} errored, "
            f"{counts.expired} expired, {counts.canceled} canceled, {counts.processing} processing"
        )
        return batch.processing_status == "ended", progress

    def results(self, batch_id: str) -> Iterator[Outcome]:
        for response in self.client.messages.batches.results(batch_id):
            result = response.result
            if result.type == "succeeded":
                yield Outcome(response.custom_id, completion=result.message)
            elif result.type == "errored":
                error = result.error.error
                yield Outcome(
                    response.custom_id,
                    error=f"batch request {error.type}: {error.message}",
                    passing=error.type != "invalid_request_error",
                )
            else:
                yield Outcome(
                    response.custom_id, error=f"batch request {result.type}", passing=True
                )


class BatchFailed(RuntimeError):
    """A whole batch failed (its input did not validate): no call of it has a result."""


def batch_api(endpoint: Endpoint, settings: BatchSettings) -> OpenAIBatches | AnthropicBatches:
    """The batch API of the endpoint's provider."""
    kind = AnthropicBatches if endpoint.api == "messages" else OpenAIBatches
    return kind(endpoint, settings)


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
    api = batch_api(endpoint, settings)
    wanted = {request["request_id"]: request for request in requests}
    refused: set[str] = set()
    rounds = 0
    for event in journal.open_batches():
        log.info("%s batch %s was submitted before: polling it", api.name, event["batch_id"])
        refused |= _collect(api, event, journal, endpoint, settings, price)
        rounds = 1
    while rounds <= settings.retries:
        finished = journal.finished()
        pending = [r for rid, r in wanted.items() if rid not in finished and rid not in refused]
        if not pending:
            return
        if rounds:
            log.info("resubmitting the %d calls that failed or were never sent", len(pending))
        events = [
            _submit(api, chunk, journal, endpoint) for chunk in _chunks(api, pending, endpoint)
        ]
        for event in events:
            refused |= _collect(api, event, journal, endpoint, settings, price)
        rounds += 1


def _chunks(api, requests: list[dict], endpoint: Endpoint) -> Iterator[list[dict]]:
    """The calls in batches within the provider's limits of requests and bytes."""
    most, most_bytes = LIMITS[api.name]
    chunk, size = [], 0
    for request in requests:
        length = len(json.dumps(batch_body(endpoint, request))) + 200  # and its envelope
        if chunk and (len(chunk) == most or size + length > most_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(request)
        size += length
    if chunk:
        yield chunk


def _submit(api, calls: list[dict], journal: Journal, endpoint: Endpoint) -> dict:
    """Submit one batch and journal its id before anything waits on it."""
    submitted = api.submit({call["request_id"]: batch_body(endpoint, call) for call in calls})
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
    api,
    event: dict,
    journal: Journal,
    endpoint: Endpoint,
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
        answer = _answer(outcome, endpoint, latency_s, price)
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
    outcome: Outcome, endpoint: Endpoint, latency_s: float, price: Callable[[Usage], float]
) -> dict:
    """A journal record's answer fields: the text, finish reason and token counts as the live
    client reads them (``providers.answer``), priced at batch price."""
    if outcome.error:
        return {
            "text": None,
            "finish_reason": None,
            **usage_record(Usage(batch=True)),
            "latency_s": latency_s,
            "cost_usd": 0.0,
            "error": outcome.error,
        }
    wire = endpoint if endpoint.api == "messages" else replace(endpoint, api="chat")
    text, finish_reason, usage = providers.answer(wire, outcome.completion)
    usage = replace(usage, batch=True)
    return {
        "text": text,
        "finish_reason": finish_reason,
        **usage_record(usage),
        "latency_s": latency_s,
        "cost_usd": price(usage),
        "error": None,
    }
