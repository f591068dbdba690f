"""The assisted-search calls' shared parts: the ideas shown and how a step's calls are made."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.core.upstream import UpstreamSource
from noveval.inference.requests import RequestsTarget
from noveval.judges.prompts import response_format
from noveval.literature.assisted_search import AssistedSearchPrompts, SearchCalls


def shown_ideas(table: pd.DataFrame) -> dict[str, str]:
    """Every idea of every instance by ``instance_id|index``."""
    return {
        f"{instance_id}|{index}": idea
        for instance_id, ideas in zip(table["instance_id"], table["ideas"])
        for index, idea in enumerate(ideas)
    }


def search_calls(
    target: RequestsTarget, settings: dict, upstream_root: str | None, schema: dict
) -> SearchCalls:
    """How a search step's calls are made: the authors' prompts (``prompts: authors``) or ours;
    the judges' budget (``retrieval.max_tokens``, else the judges' ``max_tokens``); our prompts'
    answers constrained by ``schema`` where the engine can."""
    spec = target.spec()
    authors = settings["prompts"] == "authors"
    prompts = (
        AssistedSearchPrompts(UpstreamSource("judges", Path(upstream_root)))
        if authors
        else AssistedSearchPrompts()
    )
    constrained = settings["structured_output"] and not authors
    budget = settings["retrieval"]["max_tokens"] or settings["max_tokens"]
    return SearchCalls(
        prompts,
        spec,
        {**target.decoding, "max_tokens": budget},
        response_format(spec, schema) if constrained else None,
    )
