"""The purpose-mechanism form: an LLM rewrites each idea once into purpose and mechanism.

Each unique idea text is one request; an idea shared by the pairwise and pointwise files (or by
several pairs) renders the same request id and is rewritten once. A rewrite that fails or cannot
be parsed leaves the idea in its original form and is counted in the log.
"""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.core.templates import render
from noveval.inference.requests import build_request, requests_table
from noveval.judges.prompts import response_format
from noveval.judges.verdicts import json_objects, strip_reasoning

log = logging.getLogger(__name__)

FIELDS = ("purpose", "mechanism")
SCHEMA = {
    "type": "object",
    "properties": {name: {"type": "string"} for name in FIELDS},
    "required": list(FIELDS),
    "additionalProperties": False,
}


def rewrite_requests(
    instances: pd.DataFrame, spec: ModelSpec, decoding: dict, structured_output: bool = True
) -> pd.DataFrame:
    """One rewrite request per idea of every instance (``item_id`` = instance|idea index)."""
    constraint = response_format(spec, SCHEMA) if structured_output else None
    rows = [
        build_request(
            item_id=f"{instance['instance_id']}|{index}",
            spec=spec,
            messages=[{"role": "user", "content": render("judges/rewrite.j2", idea=idea)}],
            decoding=decoding,
            response_format=constraint,
        )
        for instance in instances.to_dict("records")
        for index, idea in enumerate(instance["ideas"])
    ]
    return requests_table(rows)


def parse_rewrite(text: str | None) -> str | None:
    """'Purpose: …\\nMechanism: …' from a rewrite answer, or None."""
    for candidate in reversed(json_objects(strip_reasoning(text or ""))):
        values = [str(candidate.get(name, "")).strip() for name in FIELDS]
        if all(values):
            return "\n".join(f"{name.capitalize()}: {value}" for name, value in zip(FIELDS, values))
    return None


def apply_rewrites(instances: pd.DataFrame, responses: pd.DataFrame) -> pd.DataFrame:
    """Instances with ideas in purpose-mechanism form (an idea whose rewrite failed stays as
    written)."""
    rewrites = {
        row["item_id"]: None if pd.notna(row["error"]) else parse_rewrite(row["text"])
        for row in responses.to_dict("records")
    }
    failed = sum(text is None for text in rewrites.values())
    if failed:
        log.warning("%d of %d rewrites failed; those ideas stay as written", failed, len(rewrites))
    rewritten = instances.copy()
    rewritten["ideas"] = [
        [rewrites.get(f"{iid}|{i}") or idea for i, idea in enumerate(ideas)]
        for iid, ideas in zip(rewritten["instance_id"], rewritten["ideas"])
    ]
    return rewritten
