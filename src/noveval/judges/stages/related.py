"""Stage judges_related: each idea's related work, searched on Semantic Scholar (the assisted
search's steps 3-5) or the top k of the retrieval corpus by embedding."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.core.files import write_table
from noveval.core.jobs import call_with_job
from noveval.core.registry import load_registry
from noveval.inference.batches import read_responses
from noveval.inference.weights import use_offline
from noveval.judges import instances

log = logging.getLogger(__name__)


def related_work(
    instances_path: str,
    corpus_path: str,
    encoder: str,
    registry_path: str,
    top_k: int,
    related_path: str,
    weights_paths: list[str] = (),
) -> None:
    """The top-k related abstracts per idea from the retrieval corpus; a hub encoder loads from
    its snapshot of ``weights_paths`` (rule weights' manifests), with the hub off."""
    located = use_offline(weights_paths)
    from noveval.judges import retrieval

    reference = load_registry(registry_path).encoder(encoder)
    table = retrieval.related_work(
        instances.read_instances(instances_path),
        retrieval.load_corpus(corpus_path),
        located.get(reference, reference),
        top_k,
    )
    write_table(table, related_path)


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


def run(job) -> None:
    """One job of rule judges_related: the searched variant where the rule has query answers
    (judges.retrieval.search: semantic_scholar), else the corpus encoder's top k."""
    call_with_job(searched_related_work if "queries" in job.input.keys() else related_work, job)
