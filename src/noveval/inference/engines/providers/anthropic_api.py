"""The Anthropic SDK's Messages API (Claude) and its Message Batches.

Messages: ``max_tokens`` required, the system prompt as a top-level field, ``output_config.effort``,
``cache_control`` for prompt caching. Message Batches: the Messages calls as ``{custom_id,
params}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType

from noveval.core.pricing import Usage
from noveval.inference.engines.providers.base import (
    BatchApi,
    Outcome,
    Provider,
    present,
    register,
)


@register
class Messages(Provider):
    """Anthropic Messages."""

    name = "messages"
    default_base_url = "https://api.anthropic.com"

    @staticmethod
    def sdk() -> ModuleType:
        import anthropic

        return anthropic

    def client(self, timeout_s: float):
        return self.sdk().AsyncAnthropic(
            base_url=self.endpoint.base_url,
            api_key=self.endpoint.api_key,
            timeout=timeout_s,
            max_retries=0,
        )

    def sync_client(self, timeout_s: float, max_retries: int):
        return self.sdk().Anthropic(
            base_url=self.endpoint.base_url,
            api_key=self.endpoint.api_key,
            timeout=timeout_s,
            max_retries=max_retries,
        )

    def errors(self) -> type[Exception]:
        return self.sdk().AnthropicError

    def body(self, request, messages, schema, effort):
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        fields: dict = {"messages": [m for m in messages if m["role"] != "system"]}
        if system:
            fields["system"] = system
        if effort:
            fields["output_config"] = {"effort": effort}
        if present(request.get("cache_control")):
            fields["cache_control"] = json.loads(request["cache_control"])
        return fields, {}

    async def create(self, client, arguments: dict):
        return await client.messages.create(**arguments)

    def empty(self, result, text: str) -> bool:
        """An answer without any content block is a refusal, which the judge study's client did
        not ask again."""
        return bool(result.content) and not text

    def answer(self, result) -> tuple[str, str | None, Usage]:
        """Anthropic reports cache reads and writes beside the input tokens."""
        usage = result.usage
        text = "".join(block.text for block in result.content if block.type == "text")
        counts = Usage()
        if usage:
            counts = Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cached_input_tokens=getattr(usage, "cache_read_input_tokens", None) or 0,
                cache_creation_tokens=getattr(usage, "cache_creation_input_tokens", None) or 0,
            )
        return text, result.stop_reason, counts

    def batches(self, settings) -> BatchApi:
        return MessageBatches(self.sync_client(settings.request_timeout_s, settings.max_retries))


class MessageBatches(BatchApi):
    """Anthropic's Message Batches: create, retrieve, results."""

    name = "anthropic"
    limits = (100_000, 250 * 2**20)  # below the documented 100,000 requests and 256 MB

    def __init__(self, client):
        self.client = client

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
