"""The provider interface and its registry: one class per wire API (the registry's ``api``),
found by name (:func:`provider_for`); nothing else branches on which API a model speaks."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar

import pandas as pd

from noveval.core.pricing import Usage

# The SDK errors worth another attempt: rate limits, server errors (Anthropic's 529 "overloaded"
# is an InternalServerError), timeouts and lost connections (both SDKs name them alike).
RETRYABLE = ("RateLimitError", "InternalServerError", "APITimeoutError", "APIConnectionError")


@dataclass(frozen=True)
class Endpoint:
    """Where a model answers: base URL, key, the name it is served under, its API and token
    field, and extra body fields of every request."""

    base_url: str
    api_key: str
    served_model: str
    extra_body: dict | None = None
    api: str = "chat"
    token_field: str = "max_tokens"


@dataclass(frozen=True)
class Outcome:
    """One call's result in a batch: an answer of the SDK's type, or an error."""

    request_id: str
    completion: object | None = None
    error: str | None = None
    passing: bool = False  # a failure worth resubmitting


class BatchFailed(RuntimeError):
    """A whole batch failed (its input did not validate): no call of it has a result."""


class BatchApi(ABC):
    """A provider's batch endpoint: submit calls, poll a batch, read its outcomes."""

    name: ClassVar[str]
    limits: ClassVar[tuple[int, int]]  # requests and bytes per batch

    @abstractmethod
    def submit(self, bodies: dict[str, dict]) -> dict:
        """Send one batch of calls (request id -> body); the provider's batch record."""

    @abstractmethod
    def poll(self, batch_id: str) -> tuple[bool, str]:
        """Whether the batch has ended, and its status."""

    @abstractmethod
    def results(self, batch_id: str) -> Iterator[Outcome]:
        """Each call's outcome in an ended batch."""


class Provider(ABC):
    """One wire API of one endpoint: the SDK call a request row becomes (``arguments``,
    ``create``), the answer read back (``answer``), and its batch API where it has one.

    A subclass says how its request body differs (``body``) and reads its answers; the row was
    adapted to the model when it was built, so every value it holds is sent."""

    name: ClassVar[str]
    default_base_url: ClassVar[str]  # the SDK's, where the registry names no base_url
    sampling_as_arguments: ClassVar[bool] = False  # temperature, seed: SDK arguments, else body
    hosted_tools: ClassVar[bool] = False  # takes hosted tools (web search)

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint

    @staticmethod
    @abstractmethod
    def sdk() -> ModuleType:
        """The SDK module, imported at the first call rather than with this package: the
        workflow imports the package to plan its jobs, and the SDKs take seconds to import."""

    @abstractmethod
    def client(self, timeout_s: float):
        """The SDK's async client (its own retries off: tenacity retries)."""

    @abstractmethod
    def sync_client(self, timeout_s: float, max_retries: int):
        """The SDK's blocking client, with the SDK's own retries (lookups, batches)."""

    def retryable(self) -> tuple[type[Exception], ...]:
        """Failures worth another attempt (``RETRYABLE``)."""
        return tuple(getattr(self.sdk(), name) for name in RETRYABLE)

    @abstractmethod
    def errors(self) -> type[Exception]:
        """The base of every error the SDK raises for a call."""

    def not_found(self) -> type[Exception]:
        """The SDK's error for an unknown model."""
        return self.sdk().NotFoundError

    def arguments(self, request: dict) -> dict:
        """The keyword arguments of the SDK call that sends ``request``."""
        messages = json.loads(request["messages"])
        schema = json.loads(request["response_format"]) if request.get("response_format") else None
        effort = request.get("reasoning_effort") or None
        arguments = {
            "model": self.endpoint.served_model,
            "extra_headers": {"X-Request-Id": request["request_id"]},
        }
        if present(request.get("max_tokens")):  # optional but on Messages (checked when built)
            arguments[self.endpoint.token_field] = int(request["max_tokens"])
        extra_body = dict(self.endpoint.extra_body or {})
        # the SDKs of responses and messages lack seed (and top_p is sent to local servers only)
        sampling = arguments if self.sampling_as_arguments else extra_body
        for optional in ("temperature", "seed", "top_p"):
            if present(request.get(optional)):
                sampling[optional] = request[optional]
        if present(request.get("top_p")):
            arguments["top_p"] = float(request["top_p"])
        if present(request.get("top_k")):  # vLLM's extra sampling field
            extra_body["top_k"] = int(request["top_k"])
        if present(request.get("tools")) and not self.hosted_tools:
            raise ValueError(
                f"request {request['request_id']}: hosted tools (web search) are sent through the "
                f"Responses API only, not {self.name} (a provider batch sends chat completions)"
            )
        fields, extra = self.body(request, messages, schema, effort)
        arguments.update(fields)
        extra_body.update(extra)
        if extra_body:
            arguments["extra_body"] = extra_body
        return arguments

    @abstractmethod
    def body(
        self, request: dict, messages: list[dict], schema: dict | None, effort: str | None
    ) -> tuple[dict, dict]:
        """This API's own fields of a call: (SDK arguments, extra body fields)."""

    @abstractmethod
    async def create(self, client, arguments: dict):
        """Send one call."""

    def empty(self, result, text: str) -> bool:
        """An answer worth asking again: no text."""
        return not text

    @abstractmethod
    def answer(self, result) -> tuple[str, str | None, Usage]:
        """Text, finish reason and token counts (reasoning in the output) of an answer; input
        tokens are the uncached ones."""

    def batches(self, settings) -> BatchApi:
        """The provider's batch API (``provider_batches.BatchSettings``)."""
        raise ValueError(f"the {self.name} API has no batch API: set inference.batch_api off")

    def batch_body(self, request: dict) -> dict:
        """The body of one call as a batch request carries it."""
        arguments = self.arguments(request)
        arguments.pop("extra_headers", None)
        extra_body = arguments.pop("extra_body", None) or {}
        return {**arguments, **extra_body}

    def batch_answer(self, completion) -> tuple[str, str | None, Usage]:
        """Text, finish reason and token counts of a batch result (the live ``answer``)."""
        return self.answer(completion)


PROVIDERS: dict[str, type[Provider]] = {}  # the registry's ``api`` -> its provider class


def register(provider: type[Provider]) -> type[Provider]:
    """Register ``provider`` under its ``name`` (a class decorator)."""
    if provider.name in PROVIDERS:
        raise ValueError(f"provider '{provider.name}' is registered twice")
    PROVIDERS[provider.name] = provider
    return provider


def provider_class(api: str) -> type[Provider]:
    """The provider class of the registry's ``api``."""
    try:
        return PROVIDERS[api]
    except KeyError:
        known = ", ".join(sorted(PROVIDERS))
        raise ValueError(f"no provider for API '{api}' (registered: {known})") from None


def provider_for(endpoint: Endpoint) -> Provider:
    """The provider of ``endpoint``'s API, bound to it."""
    return provider_class(endpoint.api)(endpoint)


def present(value) -> bool:
    """A request field that is set (not None, not a missing table value)."""
    return value is not None and not (isinstance(value, float) and pd.isna(value))
