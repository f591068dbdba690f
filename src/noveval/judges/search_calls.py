"""The assisted-search calls' shared parts: the prompts, the ideas shown, the decoding."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def search_prompts(settings: dict, upstream_root: str | None):
    """The assisted search's prompts: the authors' (``prompts: authors``) or ours."""
    from noveval.core.upstream import UpstreamSource
    from noveval.literature.assisted_search import AssistedSearchPrompts

    if settings["prompts"] == "authors":
        return AssistedSearchPrompts(UpstreamSource("judges", Path(upstream_root)))
    return AssistedSearchPrompts()


def shown_ideas(table: pd.DataFrame) -> dict[str, str]:
    """Every idea of every instance by ``instance_id|index``."""
    return {
        f"{instance_id}|{index}": idea
        for instance_id, ideas in zip(table["instance_id"], table["ideas"])
        for index, idea in enumerate(ideas)
    }


def search_decoding(spec, decoding: dict, settings: dict, schema: dict):
    """The decoding and answer constraint of an assisted-search call: the judges' budget; our
    prompts' answers constrained by ``schema`` where the engine can. The budget is
    ``retrieval.max_tokens``, else the judges' ``max_tokens``."""
    from noveval.judges.prompts import response_format

    constrained = settings["structured_output"] and settings["prompts"] != "authors"
    budget = settings["retrieval"]["max_tokens"] or settings["max_tokens"]
    return {**decoding, "max_tokens": budget}, (
        response_format(spec, schema) if constrained else None
    )
