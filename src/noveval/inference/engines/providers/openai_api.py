"""The OpenAI SDK's APIs: chat completions (vLLM, llama.cpp, Gemini's OpenAI-compatible endpoint,
older OpenAI models) and Responses (GPT-5.x), and OpenAI's Batch API.

Responses: ``reasoning.effort`` and ``reasoning.summary``, ``max_output_tokens``, ``text.format``
for a schema, ``tools`` for the hosted web search, whose ``web_search_call`` output items are
counted. The Batch API: the calls as a JSON-lines file of chat completions
(``/v1/chat/completions``; a Responses-API model's calls carry ``max_completion_tokens`` and
``reasoning_effort`` there, as the authors' ``batch_api.py`` sent them), uploaded with purpose
``batch`` and run within a 24 h window.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from types import ModuleType

from noveval.core.pricing import Usage
from noveval.inference.engines.providers.base import (
    BatchApi,
    BatchFailed,
    Outcome,
    Provider,
    present,
    register,
)

BATCH_ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
BATCH_ENDED = {"completed", "failed", "expired", "cancelled"}


class OpenAIProvider(Provider):
    """An API of the OpenAI SDK."""

    default_base_url = "https://api.openai.com/v1"

    @staticmethod
    def sdk() -> ModuleType:
        import openai

        return openai

    def client(self, timeout_s: float):
        return self.sdk().AsyncOpenAI(
            base_url=self.endpoint.base_url,
            api_key=self.endpoint.api_key,
            timeout=timeout_s,
            max_retries=0,
        )

    def sync_client(self, timeout_s: float, max_retries: int):
        return self.sdk().OpenAI(
            base_url=self.endpoint.base_url,
            api_key=self.endpoint.api_key,
            timeout=timeout_s,
            max_retries=max_retries,
        )

    def errors(self) -> type[Exception]:
        return self.sdk().OpenAIError

    def batches(self, settings) -> BatchApi:
        return OpenAIBatches(self.sync_client(settings.request_timeout_s, settings.max_retries))


@register
class Chat(OpenAIProvider):
    """OpenAI chat completions."""

    name = "chat"
    sampling_as_arguments = True

    def body(self, request, messages, schema, effort):
        fields: dict = {"messages": messages}
        if schema:
            fields["response_format"] = schema
        return fields, ({"reasoning_effort": effort} if effort else {})

    async def create(self, client, arguments: dict):
        return await client.chat.completions.create(**arguments)

    def answer(self, result) -> tuple[str, str | None, Usage]:
        choice, usage = result.choices[0], result.usage
        counts = Usage()
        if usage:
            cached = getattr(usage.prompt_tokens_details, "cached_tokens", None) or 0
            counts = Usage(usage.prompt_tokens - cached, usage.completion_tokens, cached)
        return choice.message.content or "", choice.finish_reason, counts


@register
class Responses(OpenAIProvider):
    """OpenAI Responses; its batches are chat completions (OpenAI's Batch API)."""

    name = "responses"
    hosted_tools = True

    def body(self, request, messages, schema, effort):
        fields: dict = {"input": messages}
        if schema:
            fields["text"] = {"format": _responses_format(schema)}
        reasoning = {"effort": effort, "summary": request.get("reasoning_summary")}
        reasoning = {key: value for key, value in reasoning.items() if present(value)}
        if reasoning:
            fields["reasoning"] = reasoning
        if present(request.get("tools")):
            fields["tools"] = json.loads(request["tools"])
        return fields, {}

    async def create(self, client, arguments: dict):
        return await client.responses.create(**arguments)

    def answer(self, result) -> tuple[str, str | None, Usage]:
        """With the web searches the answer made."""
        usage, details = result.usage, result.incomplete_details
        finish = details.reason if details and details.reason else result.status
        searches = sum(item.type == "web_search_call" for item in result.output or [])
        counts = Usage(web_searches=searches)
        if usage:
            cached = getattr(usage.input_tokens_details, "cached_tokens", None) or 0
            counts = Usage(
                usage.input_tokens - cached, usage.output_tokens, cached, web_searches=searches
            )
        return result.output_text or "", finish, counts

    def _as_chat(self) -> Chat:
        return Chat(replace(self.endpoint, api=Chat.name, token_field="max_completion_tokens"))

    def batch_body(self, request: dict) -> dict:
        return self._as_chat().batch_body(request)

    def batch_answer(self, completion) -> tuple[str, str | None, Usage]:
        return self._as_chat().answer(completion)


def _responses_format(schema: dict) -> dict:
    """A chat ``response_format`` as the Responses API's ``text.format``."""
    if schema["type"] != "json_schema":
        return {"type": schema["type"]}
    return {"type": "json_schema", **schema["json_schema"]}


class OpenAIBatches(BatchApi):
    """OpenAI's Batch API: file upload, create, retrieve, output and error files."""

    name = "openai"
    limits = (50_000, 190 * 2**20)  # below the documented 50,000 requests and 200 MB

    def __init__(self, client):
        self.client = client

    def submit(self, bodies: dict[str, dict]) -> dict:
        lines = "".join(
            json.dumps({"custom_id": rid, "method": "POST", "url": BATCH_ENDPOINT, "body": body})
            + "\n"
            for rid, body in bodies.items()
        )
        upload = self.client.files.create(
            file=("requests.jsonl", lines.encode("utf-8"), "application/jsonl"), purpose="batch"
        )
        batch = self.client.batches.create(
            input_file_id=upload.id, endpoint=BATCH_ENDPOINT, completion_window=COMPLETION_WINDOW
        )
        return {"batch_id": batch.id, "input_file_id": upload.id}

    def poll(self, batch_id: str) -> tuple[bool, str]:
        batch = self.client.batches.retrieve(batch_id)
        counts = batch.request_counts
        progress = batch.status
        if counts:
            progress += f": {counts.completed} answered, {counts.failed} failed of {counts.total}"
        return batch.status in BATCH_ENDED, progress

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
            completion = OpenAIProvider.sdk().types.chat.ChatCompletion.model_validate(
                response["body"]
            )
            return Outcome(result["custom_id"], completion=completion)
        error = (response.get("body") or {}).get("error") or result.get("error") or {}
        reason = error.get("code") or error.get("type") or "error"
        return Outcome(
            result["custom_id"],
            error=f"batch request {status or reason}: {error.get('message')}",
            passing=status is None or status == 429 or status >= 500,
        )
