"""A loopback stand-in for the hosted APIs that enforces their documented request rules.

Three endpoints on 127.0.0.1: OpenAI chat completions (``/v1/chat/completions``), OpenAI
Responses (``/v1/responses``) and Anthropic Messages (``/v1/messages``). A request that breaks a
rule gets the provider's HTTP 400 ``invalid_request_error``; an accepted one gets a fixed answer
with fixed token counts (``INPUT_TOKENS``, ``OUTPUT_TOKENS``), so costs can be worked by hand.
Every request is recorded as (path, X-Request-Id header, body) in ``server.bodies``.
``server.overloaded`` answers that many calls with Anthropic's 529 ``overloaded_error`` first
(a retryable failure). ``server.storm`` (a :class:`Storm`) fails a share of calls, drawn from a
seeded generator, with the transient failures the providers document: 429 ``rate_limit_error``
and 503 with a ``retry-after-ms`` header (as OpenAI sends it), 500 and Anthropic's 529 without.

The providers' batch APIs, with the limits and rules of their documentation, each request of a
batch checked by the rules above (recorded as (batch id, custom id, body) in
``server.batch_lines``):
- OpenAI Batch API (platform.openai.com/docs/guides/batch, api-reference/batch): ``POST
  /v1/files`` (multipart; purpose ``batch``: a ``.jsonl`` file of at most 200 MB), ``POST
  /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window`` "24h", at most 16
  metadata pairs), ``GET /v1/batches/{id}``, ``GET /v1/files/{id}/content``. The input file
  holds at most 50,000 lines ``{custom_id, method: POST, url, body}`` with unique custom ids,
  the batch's endpoint as url and one model; a file that breaks this fails the batch
  (``status: failed``, ``errors``). Answers go to the output file, failed requests to the error
  file (``response.status_code`` >= 400 with the API's error body).
- Anthropic Message Batches (docs.anthropic.com/en/docs/build-with-claude/batch-processing, api
  messages-batches): ``POST /v1/messages/batches`` (1 to 100,000 requests, 256 MB, ``custom_id``
  matching ``^[a-zA-Z0-9_-]{1,64}$`` and unique, ``params`` validated when the batch is
  processed: a request that breaks a rule is an ``errored`` result), ``GET
  /v1/messages/batches/{id}``, and its ``results_url`` (JSON lines ``{custom_id, result}``,
  available once ``processing_status`` is ``ended``).
``server.hold_batches`` keeps new batches ``in_progress`` until it is cleared; a batch ends at
the first retrieval after that. ``server.failing_items`` (custom ids) fail once with a server
error (OpenAI: status 500 in the error file; Anthropic: an ``errored`` ``api_error`` result).

The rules, from the providers' documentation:
- OpenAI reasoning models (gpt-5, gpt-5.x; "Reasoning models", platform.openai.com/docs/guides/
  reasoning; the 400s quoted are the API's own): ``temperature`` only at its default 1
  ("Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1)
  value is supported."), no ``max_tokens`` on chat completions ("Use 'max_completion_tokens'
  instead."), ``reasoning.effort`` / ``reasoning_effort`` from the model's levels (gpt-5: minimal
  to high; gpt-5.1: none to high; gpt-5.2 and later: none to xhigh).
- OpenAI non-reasoning models (gpt-4o, gpt-3.5-turbo) take no reasoning effort; gpt-3.5-turbo
  takes no ``json_schema`` response format (Structured Outputs start with gpt-4o-2024-08-06).
- The Responses API has no ``max_tokens``, ``seed``, ``messages`` or ``response_format``
  (``max_output_tokens``, ``input``, ``text.format``); ``reasoning`` holds ``effort`` and
  ``summary`` (auto, concise or detailed), and a summary asked for comes back as a ``reasoning``
  output item before the message (platform.openai.com/docs/guides/reasoning#reasoning-summaries).
- The Responses API's hosted web search (platform.openai.com/docs/guides/tools-web-search):
  ``tools`` entries of type ``web_search`` (or its dated and preview types) with optional
  ``filters.allowed_domains`` (at most 100, without an http(s) prefix; ``web_search`` only),
  ``search_context_size`` (low, medium or high), ``user_location`` (``approximate``) and
  ``external_web_access``. A call with the tool searches once: a ``web_search_call`` output item
  (``action`` of type ``search`` with its query) before the message, whose text cites the found
  page (a ``url_citation`` annotation); the tool is echoed in the answer's ``tools``.
- Anthropic Messages (docs.anthropic.com/en/api/messages): ``max_tokens`` required; roles only
  user and assistant (the system prompt is the top-level ``system``); no fields beyond the
  documented ones ("Extra inputs are not permitted"); ``output_config.effort`` only on models
  with the effort parameter (Claude Opus 4.5, Opus 4.6, Sonnet 4.6; "max" on Opus 4.6 only);
  extended ``thinking`` is incompatible with a ``temperature`` other than 1.
- Anthropic prompt caching (docs.anthropic.com/en/docs/build-with-claude/prompt-caching):
  ``cache_control`` is ``{"type": "ephemeral"}`` with an optional ``ttl`` of "5m" or "1h", at the
  top level of the request (automatic caching: the breakpoint is the last block) or on content
  blocks of ``system`` and ``messages``; at most 4 breakpoints. The first call with a prefix
  writes it (``cache_creation_input_tokens``), a later call with the same prefix reads it
  (``cache_read_input_tokens``); ``input_tokens`` counts what follows the last breakpoint. Here
  the prefix's tokens are INPUT_TOKENS times its share of the prompt's characters, entries never
  expire and the models' minimum cacheable length (1,024 to 4,096 tokens) is not applied.
- A local model server started with an API key (vLLM's ``--api-key``, the llama-cpp-python
  server's ``api_key``): ``server.key`` set, a request without ``Authorization: Bearer <key>``
  gets 401.
- Model lookup (GET /v1/models/{id}; platform.openai.com/docs/api-reference/models/retrieve,
  docs.anthropic.com/en/api/models): the model object, or a 404 for an id the provider does not
  know (``server.unknown``; Anthropic: ``not_found_error``, OpenAI: ``model_not_found``).
  Anthropic's object gives the model's ``lifecycle`` (active, deprecated or retired) and its
  ``retires_at``: a retired model stays in the catalogue, and every Messages call naming it
  fails (docs.anthropic.com/en/docs/about-claude/model-deprecations), here with the 404
  ``not_found_error``. ``LIFECYCLE`` holds the dates of the models the registry uses.
- Gemini's OpenAI-compatible endpoint (ai.google.dev/gemini-api/docs/openai): reasoning_effort
  none, low, medium or high on 2.5 models.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INPUT_TOKENS = 1000
OUTPUT_TOKENS = 200
ANSWER = '{"more_novel": 1}'

OPENAI_EFFORTS = {
    "gpt-5-": {"minimal", "low", "medium", "high"},
    "gpt-5.1": {"none", "low", "medium", "high"},
    "gpt-5.2": {"none", "low", "medium", "high", "xhigh"},
    "gpt-5.4": {"none", "low", "medium", "high", "xhigh"},
    "gpt-5.6": {"none", "low", "medium", "high", "xhigh"},
    "gemini-2.5": {"none", "low", "medium", "high"},
}
ANTHROPIC_EFFORTS = {
    "claude-opus-4-5": {"low", "medium", "high"},
    "claude-opus-4-6": {"low", "medium", "high", "max"},
    "claude-sonnet-4-6": {"low", "medium", "high"},
}
CHAT_FIELDS = {
    "model",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "seed",
    "stop",
    "n",
    "response_format",
    "reasoning_effort",
}
RESPONSES_FIELDS = {
    "model",
    "input",
    "instructions",
    "max_output_tokens",
    "reasoning",
    "text",
    "temperature",
    "top_p",
    "store",
    "metadata",
    "tools",
    "include",
}
WEB_SEARCH_TYPES = {
    "web_search",
    "web_search_2025_08_26",
    "web_search_preview",
    "web_search_preview_2025_03_11",
}
WEB_SEARCH_FIELDS = {
    "type",
    "filters",
    "search_context_size",
    "user_location",
    "external_web_access",
}
SEARCH_CONTEXT_SIZES = {"low", "medium", "high"}
MAX_ALLOWED_DOMAINS = 100
SEARCH_QUERY = "prior work on the idea"
CITED_URL = "https://arxiv.org/abs/0000.00000"
MESSAGES_FIELDS = {
    "model",
    "max_tokens",
    "messages",
    "system",
    "output_config",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "metadata",
    "thinking",
    "cache_control",
}
REASONING_SUMMARIES = {"auto", "concise", "detailed"}
SUMMARY = "Compared the two ideas' mechanisms."
CACHE_TTLS = {"5m", "1h"}
MAX_CACHE_BREAKPOINTS = 4
# Anthropic's model deprecations page: id -> (lifecycle, retirement date).
LIFECYCLE = {
    "claude-sonnet-4-5-20250929": ("retired", "2026-11-30T00:00:00Z"),
    "claude-opus-4-5-20251101": ("deprecated", "2027-01-22T00:00:00Z"),
}
RETIRED = {model for model, (stage, _) in LIFECYCLE.items() if stage == "retired"}


class Rejected(Exception):
    """A request the provider answers with HTTP 400."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


def _efforts(model: str, table: dict) -> set[str]:
    return next((levels for prefix, levels in table.items() if model.startswith(prefix)), set())


def _reasoning_model(model: str) -> bool:
    return model.startswith("gpt-5") or model.startswith("o")


def _openai_sampling(body: dict) -> None:
    model = body["model"]
    if _reasoning_model(model) and body.get("temperature", 1) != 1:
        raise Rejected(
            f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
            "model. Only the default (1) value is supported.",
            "temperature",
        )


def _unknown(body: dict, allowed: set[str]) -> str | None:
    return next((key for key in body if key not in allowed), None)


def check_chat(body: dict) -> None:
    model = body["model"]
    if unknown := _unknown(body, CHAT_FIELDS):
        raise Rejected(f"Unrecognized request argument supplied: {unknown}", unknown)
    if not body.get("messages"):
        raise Rejected("Missing required parameter: 'messages'.", "messages")
    if _reasoning_model(model) and "max_tokens" in body:
        raise Rejected(
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "max_tokens",
        )
    _openai_sampling(body)
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in _efforts(model, OPENAI_EFFORTS):
        raise Rejected(
            f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this model.",
            "reasoning_effort",
        )
    schema = body.get("response_format") or {}
    if schema.get("type") == "json_schema" and model.startswith("gpt-3.5"):
        raise Rejected(
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with "
            "this model.",
            "response_format",
        )


def check_responses(body: dict) -> None:
    model = body["model"]
    if unknown := _unknown(body, RESPONSES_FIELDS):
        raise Rejected(f"Unsupported parameter: '{unknown}'.", unknown)
    if not body.get("input"):
        raise Rejected("Missing required parameter: 'input'.", "input")
    _openai_sampling(body)
    reasoning = body.get("reasoning") or {}
    if unknown := _unknown(reasoning, {"effort", "summary"}):
        raise Rejected(f"Unknown parameter: 'reasoning.{unknown}'.", f"reasoning.{unknown}")
    effort = reasoning.get("effort")
    if effort is not None and effort not in _efforts(model, OPENAI_EFFORTS):
        raise Rejected(
            f"Unsupported value: '{effort}' is not supported with the '{model}' model.",
            "reasoning.effort",
        )
    summary = reasoning.get("summary")
    if summary is not None and summary not in REASONING_SUMMARIES:
        raise Rejected(
            f"Invalid value: '{summary}'. Supported values are: 'auto', 'concise' and 'detailed'.",
            "reasoning.summary",
        )
    form = (body.get("text") or {}).get("format") or {}
    if form.get("type") == "json_schema" and not (form.get("name") and form.get("schema")):
        raise Rejected("Missing required parameter: 'text.format.name'.", "text.format.name")
    for index, tool in enumerate(body.get("tools") or []):
        check_web_search_tool(tool, f"tools[{index}]")


def check_web_search_tool(tool: dict, where: str) -> None:
    """A hosted web-search tool as the Responses API documents it."""
    kind = tool.get("type")
    if kind not in WEB_SEARCH_TYPES:
        raise Rejected(f"Invalid value: '{kind}'. Supported values are: web search types.", where)
    if unknown := _unknown(tool, WEB_SEARCH_FIELDS):
        raise Rejected(f"Unknown parameter: '{where}.{unknown}'.", f"{where}.{unknown}")
    size = tool.get("search_context_size")
    if size is not None and size not in SEARCH_CONTEXT_SIZES:
        raise Rejected(
            f"Invalid value: '{size}'. Supported values are: 'low', 'medium' and 'high'.",
            f"{where}.search_context_size",
        )
    location = tool.get("user_location")
    if location is not None and location.get("type") != "approximate":
        raise Rejected("Invalid value: user_location.type must be 'approximate'.", where)
    filters = tool.get("filters")
    if filters is None:
        return
    if kind.startswith("web_search_preview"):
        raise Rejected(f"Unknown parameter: '{where}.filters'.", f"{where}.filters")
    if unknown := _unknown(filters, {"allowed_domains"}):
        raise Rejected(f"Unknown parameter: '{where}.filters.{unknown}'.", f"{where}.filters")
    domains = filters.get("allowed_domains") or []
    if len(domains) > MAX_ALLOWED_DOMAINS:
        raise Rejected(
            f"Invalid '{where}.filters.allowed_domains': array too long. Expected an array with "
            f"maximum length {MAX_ALLOWED_DOMAINS}.",
            f"{where}.filters.allowed_domains",
        )
    for domain in domains:
        if not isinstance(domain, str) or re.match(r"https?://", domain):
            raise Rejected(
                f"Invalid domain '{domain}': omit the http or https prefix.",
                f"{where}.filters.allowed_domains",
            )


def check_messages(body: dict) -> None:
    model = body["model"]
    if unknown := _unknown(body, MESSAGES_FIELDS):
        raise Rejected(f"{unknown}: Extra inputs are not permitted")
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        raise Rejected("max_tokens: Field required")
    for index, message in enumerate(body.get("messages") or []):
        if message.get("role") not in ("user", "assistant"):
            raise Rejected(
                f"messages.{index}.role: Input should be 'user' or 'assistant'; use the "
                "top-level system parameter for a system prompt"
            )
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None and effort not in _efforts(model, ANTHROPIC_EFFORTS):
        raise Rejected(
            f"output_config.effort: the model {model} does not support effort '{effort}'"
        )
    thinking = (body.get("thinking") or {}).get("type") == "enabled"
    if thinking and body.get("temperature", 1) != 1:
        raise Rejected("temperature may only be set to 1 when thinking is enabled")
    check_cache_control(body)


def prompt_blocks(body: dict) -> list[tuple[str, dict]]:
    """The prompt's blocks in order (system, then each message's content) as (where, block);
    a plain string is one text block."""
    blocks = []
    system = body.get("system")
    for index, block in enumerate([system] if isinstance(system, str) else system or []):
        where = "system" if isinstance(system, str) else f"system.{index}"
        blocks.append((where, {"type": "text", "text": block} if isinstance(block, str) else block))
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str):
            blocks.append((f"messages.{index}.content", {"type": "text", "text": content}))
        else:
            for number, block in enumerate(content or []):
                blocks.append((f"messages.{index}.content.{number}", block))
    return blocks


def _check_one_cache_control(where: str, control) -> None:
    if not isinstance(control, dict) or control.get("type") != "ephemeral":
        raise Rejected(f"{where}.type: Input should be 'ephemeral'")
    if unknown := _unknown(control, {"type", "ttl"}):
        raise Rejected(f"{where}.{unknown}: Extra inputs are not permitted")
    if "ttl" in control and control["ttl"] not in CACHE_TTLS:
        raise Rejected(f"{where}.ttl: Input should be '5m' or '1h'")


def check_cache_control(body: dict) -> None:
    """Prompt caching as documented: well-formed markers, at most four breakpoints."""
    marked = [(where, block) for where, block in prompt_blocks(body) if "cache_control" in block]
    for where, block in marked:
        _check_one_cache_control(f"{where}.cache_control", block["cache_control"])
    if "cache_control" in body:
        _check_one_cache_control("cache_control", body["cache_control"])
    breakpoints = len(marked) + ("cache_control" in body)
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        raise Rejected(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {breakpoints}."
        )


def cache_usage(body: dict, cache: set) -> dict:
    """The cache fields of a Messages answer's usage, writing or reading ``cache`` (the prefixes
    cached so far, per model)."""
    blocks = [block for _, block in prompt_blocks(body)]
    marked = [index for index, block in enumerate(blocks) if "cache_control" in block]
    if "cache_control" in body and blocks:
        marked.append(len(blocks) - 1)
    if not marked:
        return {"input_tokens": INPUT_TOKENS}
    end = max(marked) + 1
    prefix = json.dumps([body["model"], blocks[:end]], sort_keys=True)
    size = sum(len(json.dumps(block, sort_keys=True)) for block in blocks)
    cached = round(
        INPUT_TOKENS * sum(len(json.dumps(b, sort_keys=True)) for b in blocks[:end]) / size
    )
    read = prefix in cache
    cache.add(prefix)
    return {
        "input_tokens": INPUT_TOKENS - cached,
        "cache_creation_input_tokens": 0 if read else cached,
        "cache_read_input_tokens": cached if read else 0,
    }


def answer_chat(body: dict) -> dict:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": ANSWER},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": INPUT_TOKENS,
            "completion_tokens": OUTPUT_TOKENS,
            "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
        },
    }


def answer_responses(body: dict) -> dict:
    summary = [
        {
            "type": "reasoning",
            "id": "rs_loopback",
            "summary": [{"type": "summary_text", "text": SUMMARY}],
        }
    ]
    asked = (body.get("reasoning") or {}).get("summary")
    tools = body.get("tools") or []
    searches = [
        {
            "type": "web_search_call",
            "id": "ws_loopback",
            "status": "completed",
            "action": {"type": "search", "query": SEARCH_QUERY},
        }
    ]
    citations = [
        {
            "type": "url_citation",
            "start_index": 0,
            "end_index": len(ANSWER),
            "url": CITED_URL,
            "title": "A prior paper",
        }
    ]
    return {
        "id": "resp_loopback",
        "object": "response",
        "created_at": 0,
        "model": body["model"],
        "status": "completed",
        "incomplete_details": None,
        "output": [
            *(summary if asked else []),
            *(searches if tools else []),
            {
                "type": "message",
                "id": "msg_loopback",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": ANSWER,
                        "annotations": citations if tools else [],
                    }
                ],
            },
        ],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": tools,
        "usage": {
            "input_tokens": INPUT_TOKENS,
            "output_tokens": OUTPUT_TOKENS,
            "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": OUTPUT_TOKENS // 2},
        },
    }


def answer_messages(body: dict, cache: set | None = None) -> dict:
    """A Messages answer (``cache``: the server's cached prefixes; None caches nothing)."""
    return {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": ANSWER}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            **cache_usage(body, set() if cache is None else cache),
            "output_tokens": OUTPUT_TOKENS,
        },
    }


ROUTES = {
    "/v1/chat/completions": (check_chat, answer_chat),
    "/v1/responses": (check_responses, answer_responses),
    "/v1/messages": (check_messages, answer_messages),
}


# --- batch APIs -------------------------------------------------------------------------------
OPENAI_BATCH_ENDPOINTS = {"/v1/chat/completions": check_chat, "/v1/responses": check_responses}
OPENAI_BATCH_LIMITS = (50_000, 200 * 2**20)  # requests, bytes of the input file
ANTHROPIC_BATCH_LIMITS = (100_000, 256 * 2**20)  # requests, bytes of the create body
CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
FILE_PURPOSES = {"assistants", "batch", "fine-tune", "vision", "user_data", "evals"}
_ids = itertools.count(1)


def _openai_error(status: int, message: str, param: str | None = None) -> tuple[int, dict]:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    return status, {"error": error}


def _anthropic_error(status: int, message: str, kind: str = "invalid_request_error"):
    return status, {"type": "error", "error": {"type": kind, "message": message}}


def upload_file(server, content_type: str, raw: bytes) -> tuple[int, dict]:
    """POST /v1/files: a multipart upload with ``file`` and ``purpose``."""
    form = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    fields = {
        part.get_param("name", header="content-disposition"): part for part in form.iter_parts()
    }
    if "file" not in fields:
        return _openai_error(400, "Missing required parameter: 'file'.", "file")
    purpose = fields["purpose"].get_content().strip() if "purpose" in fields else None
    if purpose not in FILE_PURPOSES:
        return _openai_error(400, f"Invalid value for 'purpose': {purpose!r}.", "purpose")
    filename = fields["file"].get_filename() or ""
    content = fields["file"].get_payload(decode=True)
    if purpose == "batch" and not filename.endswith(".jsonl"):
        return _openai_error(400, "Invalid file format for Batch API. Must be .jsonl", "file")
    if purpose == "batch" and len(content) > OPENAI_BATCH_LIMITS[1]:
        return _openai_error(400, "File is too large for Batch API (200 MB).", "file")
    file = {
        "id": f"file-loopback{next(_ids)}",
        "object": "file",
        "bytes": len(content),
        "created_at": 0,
        "filename": filename,
        "purpose": purpose,
        "status": "processed",
    }
    server.files[file["id"]] = (file, content)
    return 200, file


def _input_errors(content: bytes, endpoint: str) -> list[dict]:
    """What fails validation of a batch input file (the batch then fails with these)."""
    lines = content.decode("utf-8").splitlines()
    if len(lines) > OPENAI_BATCH_LIMITS[0]:
        return [{"code": "too_many_requests", "message": "more than 50,000 requests"}]
    errors, seen, models = [], set(), set()
    for number, line in enumerate(lines, start=1):
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            request = None
        if not isinstance(request, dict) or set(request) != {"custom_id", "method", "url", "body"}:
            message = "each line holds exactly custom_id, method, url and body"
            errors.append({"code": "invalid_json_line", "message": message, "line": number})
            continue
        if request["method"] != "POST" or request["url"] != endpoint:
            message = f"method must be POST and url the batch's endpoint {endpoint}"
            errors.append({"code": "invalid_url", "message": message, "line": number})
        if request["custom_id"] in seen:
            message = f"duplicate custom_id {request['custom_id']!r}"
            errors.append({"code": "duplicate_custom_id", "message": message, "line": number})
        seen.add(request["custom_id"])
        models.add(request["body"].get("model"))
    if len(models) > 1:
        message = "all requests of a batch must use the same model"
        errors.append({"code": "mismatched_model", "message": message, "line": None})
    return errors


def create_batch(server, body: dict) -> tuple[int, dict]:
    """POST /v1/batches."""
    stored = server.files.get(body.get("input_file_id"))
    if stored is None or stored[0]["purpose"] != "batch":
        return _openai_error(400, "Invalid 'input_file_id': no batch file.", "input_file_id")
    if body.get("endpoint") not in OPENAI_BATCH_ENDPOINTS:
        return _openai_error(400, f"Invalid 'endpoint': {body.get('endpoint')!r}.", "endpoint")
    if body.get("completion_window") != "24h":
        message = "Invalid 'completion_window': only '24h' is supported."
        return _openai_error(400, message, "completion_window")
    if len(body.get("metadata") or {}) > 16:
        return _openai_error(400, "metadata holds at most 16 pairs.", "metadata")
    if unknown := _unknown(body, {"input_file_id", "endpoint", "completion_window", "metadata"}):
        return _openai_error(400, f"Unrecognized request argument supplied: {unknown}", unknown)
    lines = [json.loads(line) for line in stored[1].decode("utf-8").splitlines() if line]
    errors = _input_errors(stored[1], body["endpoint"])
    batch = {
        "id": f"batch_loopback{next(_ids)}",
        "object": "batch",
        "endpoint": body["endpoint"],
        "errors": {"object": "list", "data": errors} if errors else None,
        "input_file_id": body["input_file_id"],
        "completion_window": "24h",
        "status": "failed" if errors else "in_progress",
        "output_file_id": None,
        "error_file_id": None,
        "created_at": 0,
        "metadata": body.get("metadata"),
        "request_counts": {"total": 0 if errors else len(lines), "completed": 0, "failed": 0},
    }
    server.batches[batch["id"]] = (batch, [] if errors else lines)
    return 200, batch


def _openai_results(server, batch: dict, lines: list[dict]) -> None:
    """Answer every request of an ending batch into its output and error files."""
    output, failed = [], []
    check, answer = ROUTES[batch["endpoint"]]
    for line in lines:
        server.batch_lines.append((batch["id"], line["custom_id"], line["body"]))
        result = {"id": f"batch_req_{next(_ids)}", "custom_id": line["custom_id"], "error": None}
        if line["custom_id"] in server.failing_items:
            server.failing_items.discard(line["custom_id"])
            error = {"message": "The server had an error", "type": "server_error"}
            response = {"status_code": 500, "request_id": "req_loopback", "body": {"error": error}}
            failed.append({**result, "response": response})
            continue
        try:
            check(line["body"])
        except Rejected as rejected:
            error = _openai_error(400, str(rejected), rejected.param)[1]
            response = {"status_code": 400, "request_id": "req_loopback", "body": error}
            failed.append({**result, "response": response})
            continue
        response = {"status_code": 200, "request_id": "req_loopback", "body": answer(line["body"])}
        output.append({**result, "response": response})
    for kind, results in (("output_file_id", output), ("error_file_id", failed)):
        if results:
            content = "".join(json.dumps(result) + "\n" for result in results).encode()
            file_id = f"file-loopback{next(_ids)}"
            name = f"{batch['id']}_{kind}.jsonl"
            file = {
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "created_at": 0,
                "filename": name,
                "purpose": "batch_output",
                "status": "processed",
            }
            server.files[file_id] = (file, content)
            batch[kind] = file_id
    batch["request_counts"].update(completed=len(output), failed=len(failed))
    batch["status"] = "completed"


def retrieve_batch(server, batch_id: str) -> tuple[int, dict]:
    """GET /v1/batches/{id}: a held batch stays in progress; else it ends now."""
    if batch_id not in server.batches:
        return _openai_error(404, f"No batch found with id '{batch_id}'.")
    batch, lines = server.batches[batch_id]
    if batch["status"] == "in_progress" and not server.hold_batches:
        _openai_results(server, batch, lines)
    return 200, batch


def file_content(server, file_id: str) -> tuple[int, bytes | dict]:
    """GET /v1/files/{id}/content."""
    if file_id not in server.files:
        return _openai_error(404, f"No such File object: {file_id}")
    return 200, server.files[file_id][1]


def create_message_batch(server, body: dict, size: int) -> tuple[int, dict]:
    """POST /v1/messages/batches."""
    requests = body.get("requests")
    if _unknown(body, {"requests"}):
        return _anthropic_error(
            400, f"{_unknown(body, {'requests'})}: Extra inputs are not permitted"
        )
    if not isinstance(requests, list) or not 1 <= len(requests) <= ANTHROPIC_BATCH_LIMITS[0]:
        return _anthropic_error(400, "requests: List should have 1 to 100000 items")
    if size > ANTHROPIC_BATCH_LIMITS[1]:
        return _anthropic_error(413, "Batch exceeds 256 MB", "request_too_large")
    seen = set()
    for index, request in enumerate(requests):
        custom_id = request.get("custom_id") if isinstance(request, dict) else None
        if set(request or {}) != {"custom_id", "params"}:
            return _anthropic_error(400, f"requests.{index}: custom_id and params are required")
        if not isinstance(custom_id, str) or not CUSTOM_ID.fullmatch(custom_id):
            message = (
                f"requests.{index}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            )
            return _anthropic_error(400, message)
        if custom_id in seen:
            return _anthropic_error(400, f"Duplicate custom_id: {custom_id}")
        seen.add(custom_id)
    batch_id = f"msgbatch_loopback{next(_ids)}"
    batch = {
        "id": batch_id,
        "type": "message_batch",
        "processing_status": "in_progress",
        "request_counts": {
            "processing": len(requests),
            "succeeded": 0,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        },
        "created_at": "2026-01-01T00:00:00Z",
        "expires_at": "2026-01-02T00:00:00Z",
        "ended_at": None,
        "archived_at": None,
        "cancel_initiated_at": None,
        "results_url": None,
    }
    server.message_batches[batch_id] = (batch, requests, [])
    return 200, batch


def _anthropic_results(server, batch: dict, requests: list[dict], results: list[dict]) -> None:
    counts = batch["request_counts"]
    for request in requests:
        server.batch_lines.append((batch["id"], request["custom_id"], request["params"]))
        if request["custom_id"] in server.failing_items:
            server.failing_items.discard(request["custom_id"])
            error = _anthropic_error(500, "Internal server error", "api_error")[1]
            result = {"type": "errored", "error": error}
        else:
            try:
                if request["params"].get("stream"):
                    raise Rejected("stream: batch requests cannot stream")
                check_messages(request["params"])
            except Rejected as rejected:
                result = {"type": "errored", "error": _anthropic_error(400, str(rejected))[1]}
            else:
                result = {"type": "succeeded", "message": answer_messages(request["params"])}
        kind = "succeeded" if result["type"] == "succeeded" else "errored"
        counts[kind] += 1
        results.append({"custom_id": request["custom_id"], "result": result})
    counts["processing"] = 0
    batch.update(
        processing_status="ended",
        ended_at="2026-01-01T01:00:00Z",
        results_url=f"{server.base_url('messages')}/v1/messages/batches/{batch['id']}/results",
    )


def retrieve_message_batch(server, batch_id: str) -> tuple[int, dict]:
    """GET /v1/messages/batches/{id}: a held batch stays in progress; else it ends now."""
    if batch_id not in server.message_batches:
        return _anthropic_error(404, f"No batch found with id '{batch_id}'", "not_found_error")
    batch, requests, results = server.message_batches[batch_id]
    if batch["processing_status"] == "in_progress" and not server.hold_batches:
        _anthropic_results(server, batch, requests, results)
    return 200, batch


def message_batch_results(server, batch_id: str) -> tuple[int, bytes | dict]:
    """GET /v1/messages/batches/{id}/results: JSON lines, once the batch has ended."""
    if batch_id not in server.message_batches:
        return _anthropic_error(404, f"No batch found with id '{batch_id}'", "not_found_error")
    batch, _, results = server.message_batches[batch_id]
    if batch["processing_status"] != "ended":
        return _anthropic_error(400, f"Batch {batch_id} has not ended: no results yet")
    return 200, "".join(json.dumps(result) + "\n" for result in results).encode()


MODELS_PREFIX = "/v1/models/"
GET_ROUTES = [
    (re.compile(r"/v1/batches/([^/]+)"), retrieve_batch),
    (re.compile(r"/v1/files/([^/]+)/content"), file_content),
    (re.compile(r"/v1/messages/batches/([^/]+)"), retrieve_message_batch),
    (re.compile(r"/v1/messages/batches/([^/]+)/results"), message_batch_results),
]


class Storm:
    """Transient failures of a share of calls, drawn from a seeded generator; ``struck`` counts
    them by status."""

    def __init__(self, share: float, seed: int, retry_after_ms: int = 10):
        self.share = share
        self.random = random.Random(seed)
        self.retry_after_ms = retry_after_ms
        self.struck: Counter = Counter()

    def strike(self, anthropic: bool) -> tuple[int, dict, dict] | None:
        """None for a call let through, else (status, body, headers) of its failure."""
        if self.random.random() >= self.share:
            return None
        status = self.random.choice((429, 503, 500, 529 if anthropic else 502))
        self.struck[status] += 1
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        error = {"type": kind, "message": f"loopback storm: {status}"}
        body = {"type": "error", "error": error} if anthropic else {"error": error}
        retry = {"retry-after-ms": str(self.retry_after_ms)} if status in (429, 503) else {}
        return status, body, retry


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet
        pass

    def _reply(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _reply_payload(self, status: int, payload: dict | bytes) -> None:
        if isinstance(payload, dict):
            return self._reply(status, payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _authorized(self) -> bool:
        key = self.headers.get("x-api-key") or self.headers.get("Authorization")
        if self.path.startswith("/v1/messages"):
            return bool(key and self.headers.get("anthropic-version"))
        return bool(key)

    def do_GET(self) -> None:
        """The model lookup, then the batch endpoints (``GET_ROUTES``)."""
        path = self.path.split("?")[0]
        if path.startswith(MODELS_PREFIX):
            return self._model_lookup(path[len(MODELS_PREFIX) :])
        for pattern, handler in GET_ROUTES:
            if match := pattern.fullmatch(path):
                if not self._authorized():
                    return self._reply(401, {"error": {"type": "authentication_error"}})
                with self.server.lock:
                    self.server.bodies.append((path, None, {}))
                    status, payload = handler(self.server, match.group(1))
                return self._reply_payload(status, payload)
        self._reply(404, {"error": {"message": f"no route {self.path}"}})

    def _post_batch(self, raw: bytes) -> None:
        if not self._authorized():
            return self._reply(401, {"error": {"type": "authentication_error"}})
        server = self.server
        with server.lock:
            if self.path == "/v1/files":
                server.bodies.append((self.path, None, {}))
                status, payload = upload_file(server, self.headers["Content-Type"], raw)
            elif self.path == "/v1/batches":
                body = json.loads(raw)
                server.bodies.append((self.path, None, body))
                status, payload = create_batch(server, body)
            else:
                body = json.loads(raw)
                server.bodies.append((self.path, None, body))
                status, payload = create_message_batch(server, body, len(raw))
        self._reply(status, payload)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        if self.server.key and self.headers.get("Authorization") != f"Bearer {self.server.key}":
            with self.server.lock:
                self.server.refused += 1
            return self._reply(401, {"error": {"message": "Unauthorized"}})
        if self.path in ("/v1/files", "/v1/batches", "/v1/messages/batches"):
            return self._post_batch(raw)
        body = json.loads(raw)
        server = self.server
        with server.lock:
            server.bodies.append((self.path, self.headers.get("X-Request-Id"), body))
            overloaded = server.overloaded > 0
            server.overloaded -= overloaded
            anthropic = self.path == "/v1/messages"
            struck = server.storm.strike(anthropic) if server.storm else None
        if self.path not in ROUTES:
            return self._reply(404, {"error": {"message": f"no route {self.path}"}})
        key = self.headers.get("x-api-key") or self.headers.get("Authorization")
        if anthropic and not (key and self.headers.get("anthropic-version")):
            return self._reply(401, {"type": "error", "error": {"type": "authentication_error"}})
        if overloaded:
            error = {"type": "overloaded_error", "message": "Overloaded"}
            return self._reply(529, {"type": "error", "error": error})
        if struck:
            return self._reply(*struck)
        time.sleep(server.latency_s)
        check, answer = ROUTES[self.path]
        try:
            check(body)
        except Rejected as rejected:
            error = {"type": "invalid_request_error", "message": str(rejected)}
            if anthropic:
                return self._reply(400, {"type": "error", "error": error})
            return self._reply(400, {"error": {**error, "param": rejected.param, "code": None}})
        if anthropic:
            return self._messages(body)
        reply = answer(body)
        text = self.server.answers.get(body.get("model"))
        if callable(text):
            text = text(body)
        if text is not None and self.path == "/v1/chat/completions":
            reply["choices"][0]["message"]["content"] = text
        elif text is not None and self.path == "/v1/responses":
            reply["output"][-1]["content"][0]["text"] = text
        self._reply(200, reply)

    def _messages(self, body: dict) -> None:
        """A Messages call: the retired model's 404, or the answer (with its cache usage; an
        empty text block while ``server.empty`` lasts)."""
        server = self.server
        if body["model"] in RETIRED | server.unknown:
            return self._reply(*anthropic_model_not_found(body["model"]))
        with server.lock:
            payload = answer_messages(body, server.cache)
            empty = server.empty > 0
            server.empty -= empty
        if empty:
            payload["content"] = [{"type": "text", "text": ""}]
        self._reply(200, payload)

    def _model_lookup(self, model: str) -> None:
        """The providers' model lookup, GET /v1/models/{id} (Anthropic's when the request carries
        its version header)."""
        anthropic = bool(self.headers.get("anthropic-version"))
        if model in self.server.unknown:
            not_found = anthropic_model_not_found if anthropic else openai_model_not_found
            return self._reply(*not_found(model))
        if anthropic:
            return self._reply(200, anthropic_model(model))
        self._reply(200, {"id": model, "object": "model", "created": 0, "owned_by": "openai"})


def anthropic_model(model: str) -> dict:
    """Anthropic's model object (docs.anthropic.com/en/api/models)."""
    lifecycle, retires_at = LIFECYCLE.get(model, ("active", None))
    return {
        "type": "model",
        "id": model,
        "display_name": model,
        "created_at": "2025-01-01T00:00:00Z",
        "lifecycle": lifecycle,
        "retires_at": retires_at,
        "max_input_tokens": 200000,
        "max_tokens": 64000,
    }


def anthropic_model_not_found(model: str) -> tuple[int, dict]:
    return 404, {
        "type": "error",
        "error": {"type": "not_found_error", "message": f"model: {model}"},
    }


def openai_model_not_found(model: str) -> tuple[int, dict]:
    error = {
        "message": f"The model '{model}' does not exist",
        "type": "invalid_request_error",
        "param": "model",
        "code": "model_not_found",
    }
    return 404, {"error": error}


class LoopbackAPI(ThreadingHTTPServer):
    """The server; ``base_url(api)`` is what a client of that API is pointed at."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.bodies: list[tuple[str, str | None, dict]] = []
        self.overloaded = 0
        self.storm: Storm | None = None
        self.files: dict[str, tuple[dict, bytes]] = {}
        self.batches: dict[str, tuple[dict, list[dict]]] = {}
        self.message_batches: dict[str, tuple[dict, list[dict], list[dict]]] = {}
        self.batch_lines: list[tuple[str, str, dict]] = []
        self.hold_batches = False
        self.failing_items: set[str] = set()
        self.empty = 0  # Messages calls still to answer with an empty text block
        self.cache: set = set()  # prompt-cache prefixes written so far
        self.unknown: set[str] = set()  # model ids the providers answer with a 404
        self.key: str | None = None  # the key a local server demands (None: none)
        self.refused = 0  # calls answered 401 for another key than ``key``
        self.latency_s = 0.0  # seconds every call that gets an answer waits before it
        # model id -> its chat completions or Responses answer, or a function of the request body
        # giving it (else ANSWER)
        self.answers: dict[str, str | Callable[[dict], str]] = {}
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def base_url(self, api: str) -> str:
        root = f"http://127.0.0.1:{self.server_address[1]}"
        return root if api == "messages" else f"{root}/v1"  # the Anthropic SDK adds /v1
