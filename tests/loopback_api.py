"""A loopback stand-in for the hosted APIs that enforces their documented request rules.

Three endpoints on 127.0.0.1: OpenAI chat completions (``/v1/chat/completions``), OpenAI
Responses (``/v1/responses``) and Anthropic Messages (``/v1/messages``). A request that breaks a
rule gets the provider's HTTP 400 ``invalid_request_error``; an accepted one gets a fixed answer
with fixed token counts (``INPUT_TOKENS``, ``OUTPUT_TOKENS``), so costs can be worked by hand.
Every request is recorded as (path, X-Request-Id header, body) in ``server.bodies``.
``server.overloaded`` answers that many calls with Anthropic's 529 ``overloaded_error`` first
(a retryable failure).

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

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INPUT_TOKENS = 1000
OUTPUT_TOKENS = 200
ANSWER = '{"more_novel": 1}'

OPENAI_EFFORTS = {
    "gpt-5-": {"minimal", "low", "medium", "high"},
    "gpt-5.1": {"none", "low", "medium", "high"},
    "gpt-5.2": {"none", "low", "medium", "high", "xhigh"},
    "gpt-5.4": {"none", "low", "medium", "high", "xhigh"},
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
}
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
    return {
        "id": "resp_loopback",
        "object": "response",
        "created_at": 0,
        "model": body["model"],
        "status": "completed",
        "incomplete_details": None,
        "output": [
            *(summary if asked else []),
            {
                "type": "message",
                "id": "msg_loopback",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
            },
        ],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
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


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet
        pass

    def _reply(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.bodies.append((self.path, self.headers.get("X-Request-Id"), body))
            overloaded = server.overloaded > 0
            server.overloaded -= overloaded
        anthropic = self.path == "/v1/messages"
        if self.path not in ROUTES:
            return self._reply(404, {"error": {"message": f"no route {self.path}"}})
        key = self.headers.get("x-api-key") or self.headers.get("Authorization")
        if anthropic and not (key and self.headers.get("anthropic-version")):
            return self._reply(401, {"type": "error", "error": {"type": "authentication_error"}})
        if overloaded:
            error = {"type": "overloaded_error", "message": "Overloaded"}
            return self._reply(529, {"type": "error", "error": error})
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
        self._reply(200, answer(body))

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

    def do_GET(self) -> None:
        """GET endpoints by path prefix (``GET_ROUTES``)."""
        for prefix, handler in GET_ROUTES.items():
            if self.path.startswith(prefix):
                return handler(self, self.path[len(prefix) :])
        self._reply(404, {"error": {"message": f"no route {self.path}"}})

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


GET_ROUTES = {"/v1/models/": Handler._model_lookup}


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
        self.empty = 0  # Messages calls still to answer with an empty text block
        self.cache: set = set()  # prompt-cache prefixes written so far
        self.unknown: set[str] = set()  # model ids the providers answer with a 404
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def base_url(self, api: str) -> str:
        root = f"http://127.0.0.1:{self.server_address[1]}"
        return root if api == "messages" else f"{root}/v1"  # the Anthropic SDK adds /v1
