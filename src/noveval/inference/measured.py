"""The pilot's measured file: what a few real calls of each model took (rule pilot).

One row per model and track: the calls answered, their mean output tokens (reasoning included)
and, for a model that reasons, the mean tokens beyond the answer's text (its reasoning,
estimated as output tokens minus the text's characters / ``chars_per_token``); output tokens and
calls per second while the calls were in flight, and a call's mean seconds from sent to answered;
and the seconds the model's server took to start. The plan and the inference jobs' time limits
use a model's rows in place of their assumptions (``noveval.planning``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from noveval.core.registry import ModelSpec

MEASURED_COLUMNS = [
    "model",
    "track",
    "engine",
    "calls",
    "failed_calls",
    "sent_calls",
    "send_s",
    "sent_output_tokens",
    "output_tokens_per_s",
    "calls_per_s",
    "mean_output_tokens",
    "mean_reasoning_tokens",
    "server_start_s",
    "mean_latency_s",
]
# columns a measured file written before they existed may lack (read as not measured)
LATER_COLUMNS = {"mean_latency_s"}


@dataclass(frozen=True)
class Measured:
    """One model's measurements as the plan uses them (None: not measured, assumed)."""

    output_tokens_per_s: float | None
    server_start_s: float | None
    answer_tokens: dict[str, float]  # track -> mean output tokens per call, reasoning included
    latency_s: dict[str, float] = field(default_factory=dict)  # track -> mean seconds per call


def measure(
    responses: pd.DataFrame,
    sent: dict,
    spec: ModelSpec,
    track: str,
    chars_per_token: float,
) -> dict:
    """The measured row of one pilot job: its ``responses`` and what its run ``sent``
    (``inference.Sent`` as a dict; empty when the journal had answered every call)."""
    calls = responses.drop_duplicates("request_id")
    answered = calls[calls["error"].isna()]
    in_flight = answered[answered["request_id"].isin(sent.get("request_ids", []))]
    send_s = sent.get("send_s", 0.0)
    tokens = int(in_flight["output_tokens"].sum())
    reasoning = 0.0
    if spec.reasoning and not answered.empty:
        text = answered["text"].fillna("").map(lambda t: math.ceil(len(t) / chars_per_token))
        reasoning = float((answered["output_tokens"] - text).clip(lower=0).mean())
    return {
        "model": spec.name,
        "track": track,
        "engine": spec.engine,
        "calls": len(answered),
        "failed_calls": len(calls) - len(answered),
        "sent_calls": len(in_flight),
        "send_s": round(send_s, 3),
        "sent_output_tokens": tokens,
        "output_tokens_per_s": round(tokens / send_s, 3) if send_s > 0 else math.nan,
        "calls_per_s": round(len(in_flight) / send_s, 4) if send_s > 0 else math.nan,
        "mean_output_tokens": float(answered["output_tokens"].mean())
        if not answered.empty
        else math.nan,
        "mean_reasoning_tokens": reasoning,
        "server_start_s": round(sent["server_start_s"], 3) if sent else math.nan,
        "mean_latency_s": round(float(in_flight["latency_s"].mean()), 3)
        if not in_flight.empty
        else math.nan,
    }


def write_measured(rows: list[dict], path: str | Path) -> None:
    """The measured file, one row per model and track."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=MEASURED_COLUMNS).to_csv(path, index=False)


def read_measured(path: str | Path) -> dict[str, Measured]:
    """Model -> its measurements, from a measured file; empty when there is no file.

    A model's throughput pools its tracks (output tokens sent / seconds in flight); its server
    start is the mean of its jobs'; its latency, per track, that of the calls in flight.
    """
    if not path or not Path(path).is_file():
        return {}
    table = pd.read_csv(path)
    missing = [c for c in MEASURED_COLUMNS if c not in table.columns and c not in LATER_COLUMNS]
    if missing:
        raise ValueError(f"measured file {path}: no column {', '.join(missing)}")
    measured = {}
    for model, rows in table.groupby("model", sort=False):
        send_s = rows["send_s"].sum()
        starts = rows["server_start_s"].dropna()
        answers = rows.dropna(subset=["mean_output_tokens"])
        timed = rows.dropna(subset=["mean_latency_s"]) if "mean_latency_s" in rows else rows[:0]
        measured[model] = Measured(
            output_tokens_per_s=rows["sent_output_tokens"].sum() / send_s if send_s > 0 else None,
            server_start_s=float(starts.mean()) if not starts.empty else None,
            answer_tokens=dict(zip(answers["track"], answers["mean_output_tokens"].astype(float))),
            latency_s=dict(zip(timed["track"], timed["mean_latency_s"].astype(float))),
        )
    return measured
