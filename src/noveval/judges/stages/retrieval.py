"""The retrieval change's stages: related work from the embedding corpus, or the assisted
literature search (contribution and query requests, then the searches).

The modules that load torch, scipy or matplotlib are imported by the steps that use them: each
job is a fresh process, importing them takes seconds, and most jobs need none of them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.batches import read_responses
from noveval.chat_requests import REQUEST_COLUMNS
from noveval.files import write_table
from noveval.judges import instances
from noveval.registry import load_registry
from noveval.weights import use_offline

log = logging.getLogger(__name__)


def related_work(
    instances_path: str,
    corpus_path: str,
    encoder: str,
    registry_path: str,
    top_k: int,
    related_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """The top-k related abstracts per idea from the retrieval corpus; a hub encoder loads from
    its snapshot of ``weights_manifests`` (rule weights), with the hub off."""
    located = use_offline(weights_manifests)
    from noveval.judges import retrieval

    reference = load_registry(registry_path).encoder(encoder)
    table = retrieval.related_work(
        instances.read_instances(instances_path),
        retrieval.load_corpus(corpus_path),
        located.get(reference, reference),
        top_k,
    )
    write_table(table, related_path)


def _search_prompts(settings: dict, upstream_root: str | None):
    from noveval.literature.assisted_search import AssistedSearchPrompts
    from noveval.upstream import UpstreamSource

    if settings["prompts"] == "authors":
        return AssistedSearchPrompts(UpstreamSource("judges", Path(upstream_root)))
    return AssistedSearchPrompts()


def _shown_ideas(table: pd.DataFrame) -> dict[str, str]:
    """Every idea of every instance by ``instance_id|index``."""
    return {
        f"{instance_id}|{index}": idea
        for instance_id, ideas in zip(table["instance_id"], table["ideas"])
        for index, idea in enumerate(ideas)
    }


def _search_decoding(spec, decoding: dict, settings: dict, schema: dict):
    """The decoding and answer constraint of an assisted-search call: the judges' budget; our
    prompts' answers constrained by ``schema`` where the engine can. The budget is
    ``retrieval.max_tokens``, else the judges' ``max_tokens``."""
    from noveval.judges.prompts import response_format

    constrained = settings["structured_output"] and settings["prompts"] != "authors"
    budget = settings["retrieval"]["max_tokens"] or settings["max_tokens"]
    return {**decoding, "max_tokens": budget}, (
        response_format(spec, schema) if constrained else None
    )


def search_contribution_requests(
    instances_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    upstream_root: str | None = None,
) -> None:
    """Step 1 of the assisted search: one contributions request per idea of a setup."""
    from noveval.literature import assisted_search

    spec = load_registry(registry_path).model(model)
    ideas = _shown_ideas(instances.read_instances(instances_path))
    call, constraint = _search_decoding(
        spec, decoding, settings, assisted_search.CONTRIBUTIONS_SCHEMA
    )
    rows = assisted_search.contribution_requests(
        ideas,
        _search_prompts(settings, upstream_root),
        spec,
        call,
        settings["retrieval"]["max_contributions"],
        constraint,
    )
    log.info("%s: %d contribution requests", model, len(rows))
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def search_query_requests(
    instances_path: str,
    responses_path: str,
    responses_cell: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    upstream_root: str | None = None,
) -> None:
    """Step 2: one query-writing request per idea whose contributions could be read."""
    from noveval.literature import assisted_search

    spec = load_registry(registry_path).model(model)
    ideas = _shown_ideas(instances.read_instances(instances_path))
    answers = read_responses(responses_path, responses_cell)
    texts = {row.item_id: row.text for row in answers.itertuples() if pd.isna(row.error)}
    call, constraint = _search_decoding(spec, decoding, settings, assisted_search.QUERIES_SCHEMA)
    rows = assisted_search.query_requests(
        ideas,
        texts,
        _search_prompts(settings, upstream_root),
        spec,
        call,
        settings["retrieval"]["n_queries"],
        constraint,
    )
    if len(rows) < len(ideas):
        log.warning(
            "%d of %d ideas: no contributions could be read from the answer; they get no "
            "queries and no related work",
            len(ideas) - len(rows),
            len(ideas),
        )
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def searched_related_work(
    instances_path: str,
    queries_path: str,
    responses_path: str,
    responses_cell: str,
    retrieval: dict,
    semantic_scholar: dict,
    cache_dir: str,
    related_path: str,
) -> None:
    """Steps 3-5 of the assisted search: each idea's queries searched on Semantic Scholar, the
    candidates selected and formatted as the authors' related-work block (``related``: per
    idea a list holding that block, empty without candidates). ``queries_path``: the cell's
    query requests (none where no idea's contributions could be read: no idea searches)."""
    from noveval.literature import assisted_search
    from noveval.literature.semantic_scholar import from_settings

    table = instances.read_instances(instances_path)
    answers = read_responses(responses_path, responses_cell, queries_path)
    queries = {
        row.item_id: assisted_search.read_queries(None if pd.notna(row.error) else row.text)
        for row in answers.itertuples()
    }
    s2 = from_settings(semantic_scholar, Path(cache_dir))
    related, searched, empty = [], 0, 0
    for row in table.to_dict("records"):
        blocks = []
        for index, (idea, title) in enumerate(zip(row["ideas"], row["titles"])):
            asked = queries.get(f"{row['instance_id']}|{index}", [])
            searched += len(asked)
            chosen = assisted_search.select_candidates(
                assisted_search.search_candidates(s2, asked, retrieval["top_k"]),
                retrieval["top_k"],
                idea,
                title,
                retrieval["cutoff"],
            )
            empty += not chosen
            blocks.append([assisted_search.format_papers_for_prompt(chosen)] if chosen else [])
        related.append(blocks)
    log.info(
        "%d searches: %d requests sent to Semantic Scholar (retries included), %d answered "
        "from the cache; %d ideas without related work",
        searched,
        s2.requests_made,
        s2.requests_cached,
        empty,
    )
    write_table(
        pd.DataFrame({"instance_id": table["instance_id"], "related": related}), related_path
    )
