"""Chat requests with stable ids, the columns of the requests and responses tables, and the
one way a stage writes its requests table."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noveval.core.files import write_table
from noveval.core.registry import ModelSpec, load_registry

# The call parameters a request row holds as they are sent (null: not sent).
SAMPLING_COLUMNS = [
    "temperature",
    "max_tokens",
    "seed",
    "top_p",
    "top_k",
    "sampling",
    "reasoning_effort",
]
REQUEST_COLUMNS = [
    "request_id",
    "item_id",
    "model",
    "messages",
    *SAMPLING_COLUMNS[:-1],  # the reasoning effort stands after the answer format
    "response_format",
    "reasoning_effort",
    "cache_control",
    "reasoning_summary",
    "tools",
]
RESPONSE_COLUMNS = [
    "request_id",
    "item_id",
    "text",
    "finish_reason",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cache_creation_tokens",
    "batch",
    "latency_s",
    "cost_usd",
    "error",
    "web_searches",
]


def request_id(
    spec: ModelSpec,
    messages: list[dict],
    call_parameters: dict,
    sample: int | None = None,
    repeat: int = 0,
) -> str:
    """Stable id of a call: a hash of everything that reaches the model: its name and wire
    (reference, API, token field, the registry's request options), its messages and every call
    parameter as sent. ``sample`` tells repeated calls apart on a model that takes no seed;
    ``repeat`` (above 0) the n-th repeat of the same call sent again on purpose."""
    payload = {
        "model": spec.name,
        **spec.wire(),
        "messages": messages,
        "decoding": call_parameters,
    }
    if sample is not None:
        payload["sample"] = sample
    if repeat:
        payload["repeat"] = repeat
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def build_request(
    item_id: str,
    spec: ModelSpec,
    messages: list[dict],
    decoding: dict,
    response_format: dict | None = None,
    cache_control: dict | None = None,
    reasoning_summary: str | None = None,
    tools: list[dict] | None = None,
    repeat: int = 0,
) -> dict:
    """One row of a requests table, adapted to the model (``spec.call_parameters``).

    ``decoding`` holds optionally ``max_tokens``, ``temperature``, ``seed``, ``top_p``, ``top_k``,
    ``sampling`` (the decoding rule, recorded) and ``reasoning_effort``; a missing or null value,
    or one the model does not take, is not sent.
    A seed the model does not take still tells repeated calls apart (seed + call index): it
    stays in the id as the sample number, so each repeat is a call of its own.
    ``cache_control``: Anthropic's prompt caching of the whole prompt; ``reasoning_summary``: the
    Responses API's ``reasoning.summary``; ``tools``: the Responses API's hosted tools (web
    search). Each is part of the id only when set. ``repeat``: the n-th repeat of this call
    that must be sent again (a call of its own, not answered by the first one's journal).
    """
    call_parameters = spec.call_parameters(decoding, response_format)
    if cache_control:
        call_parameters["cache_control"] = cache_control
    if reasoning_summary:
        call_parameters["reasoning_summary"] = reasoning_summary
    if tools:
        call_parameters["tools"] = tools
    seed = decoding.get("seed")
    sample = int(seed) if seed is not None and call_parameters["seed"] is None else None
    return {
        "request_id": request_id(spec, messages, call_parameters, sample, repeat),
        "item_id": item_id,
        "model": spec.name,
        "messages": json.dumps(messages, ensure_ascii=False),
        **{key: call_parameters.get(key) for key in SAMPLING_COLUMNS},
        "response_format": json.dumps(response_format) if response_format else None,
        "cache_control": json.dumps(cache_control) if cache_control else None,
        "reasoning_summary": reasoning_summary,
        "tools": json.dumps(tools) if tools else None,
    }


def requests_table(rows: list[dict]) -> pd.DataFrame:
    """Request rows as a requests table (its columns in order, even without rows)."""
    return pd.DataFrame(rows, columns=REQUEST_COLUMNS)


def write_requests(
    rows: list[dict] | pd.DataFrame,
    path: str | Path,
    log: logging.Logger | None = None,
    subject: str = "",
    noun: str = "requests",
) -> None:
    """Write a stage's requests (``rows``: request rows, or a requests table written as it is)
    to ``path`` atomically; with ``log`` (the stage's), first log "<subject>: <count> <noun>"."""
    table = rows if isinstance(rows, pd.DataFrame) else requests_table(rows)
    if log is not None:
        log.info("%s: %d %s", subject, len(table), noun)
    write_table(table, path)


@dataclass(frozen=True)
class RequestsTarget:
    """What every requests stage shares: the model (its name in the registry at
    ``registry_path``), the decoding of its calls and the requests table it writes."""

    model: str
    registry_path: str
    decoding: dict
    requests_path: str

    @classmethod
    def of_job(cls, job) -> RequestsTarget:
        """A Snakemake job's: its model wildcard, registry and decoding params, first output."""
        return cls(job.wildcards.model, job.params.registry, job.params.decoding, job.output[0])

    def spec(self) -> ModelSpec:
        """The model's registry entry."""
        return load_registry(self.registry_path).model(self.model)
