"""Chat requests with stable ids, and the Parquet tables that carry requests and responses."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd

from noveval.registry import ModelSpec

REQUEST_COLUMNS = [
    "request_id",
    "item_id",
    "model",
    "messages",
    "temperature",
    "max_tokens",
    "seed",
    "response_format",
    "reasoning_effort",
]
RESPONSE_COLUMNS = [
    "request_id",
    "item_id",
    "text",
    "finish_reason",
    "input_tokens",
    "output_tokens",
    "latency_s",
    "cost_usd",
    "error",
]


def request_id(spec: ModelSpec, messages: list[dict], call_parameters: dict) -> str:
    """Stable id of a call: a hash of the model (its name, reference and the registry's request
    options), its messages and every call parameter."""
    payload = {
        "model": spec.name,
        "reference": spec.reference,
        "options": spec.request_options(),
        "messages": messages,
        "decoding": call_parameters,
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def build_request(
    item_id: str,
    spec: ModelSpec,
    messages: list[dict],
    decoding: dict,
    response_format: dict | None = None,
) -> dict:
    """One row of a requests table.

    ``decoding`` holds ``max_tokens`` and optionally ``temperature``, ``seed`` and
    ``reasoning_effort``; a missing or null value is not sent.
    """
    call_parameters = {
        "temperature": _optional(decoding.get("temperature"), float),
        "max_tokens": int(decoding["max_tokens"]),
        "seed": _optional(decoding.get("seed"), int),
        "reasoning_effort": decoding.get("reasoning_effort"),
        "response_format": response_format,
    }
    return {
        "request_id": request_id(spec, messages, call_parameters),
        "item_id": item_id,
        "model": spec.name,
        "messages": json.dumps(messages, ensure_ascii=False),
        **{key: value for key, value in call_parameters.items() if key != "response_format"},
        "response_format": json.dumps(response_format) if response_format else None,
    }


def _optional(value, kind):
    return None if value is None else kind(value)


def write_table(rows: list[dict] | pd.DataFrame, columns: list[str], path: str | Path) -> None:
    """Write rows to Parquet atomically (a killed job never leaves half a file)."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows, columns=columns)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.partial")
    frame.to_parquet(staging, index=False)
    staging.replace(path)


def read_tables(paths: list[str]) -> pd.DataFrame:
    """Several Parquet tables of one kind (one per grid cell) as one frame."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
