"""Each provider's API: a request row as the SDK call's arguments, and the answer back as text,
finish reason and token counts.

``chat``: OpenAI chat completions (vLLM, llama.cpp, Gemini's OpenAI-compatible endpoint, older
OpenAI models). ``responses``: OpenAI Responses (GPT-5.x: ``reasoning.effort`` and
``reasoning.summary``, ``max_output_tokens``, ``text.format`` for a schema, ``tools`` for the
hosted web search, whose ``web_search_call`` output items are counted). ``messages``:
Anthropic Messages (Claude: ``max_tokens`` required, the system prompt as a top-level field,
``output_config.effort``, ``cache_control`` for prompt caching). The row was adapted to the
model when it was built, so every value it holds is sent.

An empty answer is asked again (:func:`empty`), as the judge study's client did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from noveval.core.pricing import Usage


def retryable() -> tuple[type[Exception], ...]:
    """Failures worth another attempt: rate limits, server errors (Anthropic's 529 "overloaded"
    is an InternalServerError), timeouts and lost connections."""
    anthropic, openai = sdks()
    return (
        openai.RateLimitError,
        openai.InternalServerError,
        openai.APITimeoutError,
        openai.APIConnectionError,
        anthropic.RateLimitError,
        anthropic.InternalServerError,
        anthropic.APITimeoutError,
        anthropic.APIConnectionError,
    )


def errors() -> tuple[type[Exception], ...]:
    """Every error the SDKs raise for a call."""
    anthropic, openai = sdks()
    return (openai.OpenAIError, anthropic.AnthropicError)


def sdks():
    """The provider SDKs, imported at the first call rather than with this module: the workflow
    imports the package to plan its jobs, and the SDKs take seconds to import."""
    import anthropic
    import openai

    return anthropic, openai


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


def client(endpoint: Endpoint, timeout_s: float):
    """The SDK client of the endpoint's API (its own retries off: tenacity retries)."""
    anthropic, openai = sdks()
    if endpoint.api == "messages":
        return anthropic.AsyncAnthropic(
            base_url=endpoint.base_url, api_key=endpoint.api_key, timeout=timeout_s, max_retries=0
        )
    return openai.AsyncOpenAI(
        base_url=endpoint.base_url, api_key=endpoint.api_key, timeout=timeout_s, max_retries=0
    )


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and pd.isna(value))


def arguments(endpoint: Endpoint, request: dict) -> dict:
    """The keyword arguments of the SDK call that sends ``request``."""
    messages = json.loads(request["messages"])
    schema = json.loads(request["response_format"]) if request.get("response_format") else None
    effort = request.get("reasoning_effort") or None
    arguments = {
        "model": endpoint.served_model,
        "extra_headers": {"X-Request-Id": request["request_id"]},
    }
    if _present(request.get("max_tokens")):  # optional but on Messages (checked when built)
        arguments[endpoint.token_field] = int(request["max_tokens"])
    extra_body = dict(endpoint.extra_body or {})
    # the SDKs of responses and messages lack seed (and top_p is sent to local servers only)
    for optional in ("temperature", "seed", "top_p"):
        if _present(request.get(optional)):
            (arguments if endpoint.api == "chat" else extra_body)[optional] = request[optional]
    if _present(request.get("top_p")):
        arguments["top_p"] = float(request["top_p"])
    if _present(request.get("top_k")):  # vLLM's extra sampling field
        extra_body["top_k"] = int(request["top_k"])
    if _present(request.get("tools")) and endpoint.api != "responses":
        raise ValueError(
            f"request {request['request_id']}: hosted tools (web search) are sent through the "
            f"Responses API only, not {endpoint.api} (a provider batch sends chat completions)"
        )
    if endpoint.api == "chat":
        arguments["messages"] = messages
        if schema:
            arguments["response_format"] = schema
        if effort:
            extra_body["reasoning_effort"] = effort
    elif endpoint.api == "responses":
        arguments["input"] = messages
        if schema:
            arguments["text"] = {"format": _responses_format(schema)}
        reasoning = {"effort": effort, "summary": request.get("reasoning_summary")}
        reasoning = {key: value for key, value in reasoning.items() if _present(value)}
        if reasoning:
            arguments["reasoning"] = reasoning
        if _present(request.get("tools")):
            arguments["tools"] = json.loads(request["tools"])
    else:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        arguments["messages"] = [m for m in messages if m["role"] != "system"]
        if system:
            arguments["system"] = system
        if effort:
            arguments["output_config"] = {"effort": effort}
        if _present(request.get("cache_control")):
            arguments["cache_control"] = json.loads(request["cache_control"])
    if extra_body:
        arguments["extra_body"] = extra_body
    return arguments


def _responses_format(schema: dict) -> dict:
    """A chat ``response_format`` as the Responses API's ``text.format``."""
    if schema["type"] != "json_schema":
        return {"type": schema["type"]}
    return {"type": "json_schema", **schema["json_schema"]}


async def create(client, endpoint: Endpoint, arguments: dict):
    """Send one call through the endpoint's API."""
    if endpoint.api == "messages":
        return await client.messages.create(**arguments)
    if endpoint.api == "responses":
        return await client.responses.create(**arguments)
    return await client.chat.completions.create(**arguments)


def empty(endpoint: Endpoint, result, text: str) -> bool:
    """An answer worth asking again: no text. A Messages answer without any content block is
    a refusal, which the judge study's client did not ask again."""
    if endpoint.api == "messages":
        return bool(result.content) and not text
    return not text


def answer(endpoint: Endpoint, result) -> tuple[str, str | None, Usage]:
    """Text, finish reason and token counts (reasoning in the output) of an answer, with the
    web searches a Responses answer made.

    Input tokens are the uncached ones: OpenAI counts cache hits inside its input tokens,
    Anthropic reports cache reads and writes beside them."""
    usage = result.usage
    if endpoint.api == "messages":
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
    if endpoint.api == "responses":
        details = result.incomplete_details
        finish = details.reason if details and details.reason else result.status
        searches = sum(item.type == "web_search_call" for item in result.output or [])
        counts = Usage(web_searches=searches)
        if usage:
            cached = getattr(usage.input_tokens_details, "cached_tokens", None) or 0
            counts = Usage(
                usage.input_tokens - cached, usage.output_tokens, cached, web_searches=searches
            )
        return result.output_text or "", finish, counts
    choice = result.choices[0]
    counts = Usage()
    if usage:
        cached = getattr(usage.prompt_tokens_details, "cached_tokens", None) or 0
        counts = Usage(usage.prompt_tokens - cached, usage.completion_tokens, cached)
    return choice.message.content or "", choice.finish_reason, counts
