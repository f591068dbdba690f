"""NovBench generation requests: zero-shot, few-shot and RAG prompts for one grid cell.

``prompts: builtin`` renders the project's templates (a system message and a user message);
``prompts: authors`` renders the authors' own scripts' prompts (see ``noveval.novbench.authors``).
"""

from __future__ import annotations

import random

import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.core.templates import render
from noveval.inference.requests import build_request
from noveval.novbench import authors
from noveval.novbench.decoding import call_decoding
from noveval.novbench.parsing import format_evaluation

STRATEGIES = ("zero", "few", "rag")
PROMPTS = ("builtin", "authors")


def few_shot_draw(pool: pd.DataFrame, paper_id: str, count: int, seed: int) -> list[dict]:
    """``count`` other papers of the pool, drawn reproducibly for ``paper_id``."""
    others = pool[pool["paper_id"] != paper_id].sort_values("paper_id")
    rng = random.Random(f"{seed}:{paper_id}")
    chosen = rng.sample(range(len(others)), k=min(count, len(others)))
    return [others.iloc[i].to_dict() for i in chosen]


def few_shot_examples(pool: pd.DataFrame, paper_id: str, count: int, seed: int) -> list[dict]:
    """The builtin demonstrations: descriptions and the gold re-rendered from our parse."""
    return [
        {
            "descriptions": list(other["descriptions"]),
            "evaluation": format_evaluation(list(zip(other["gold_labels"], other["gold_texts"]))),
        }
        for other in few_shot_draw(pool, paper_id, count, seed)
    ]


def user_prompt(paper: dict, strategy: str, pool: pd.DataFrame, settings: dict) -> str:
    """The builtin user message of ``strategy`` for one (possibly perturbed) paper."""
    descriptions = list(paper["descriptions"])
    if strategy == "zero":
        return render("novbench/zero.j2", descriptions=descriptions)
    if strategy == "few":
        examples = few_shot_examples(
            pool, paper["paper_id"], settings["few_shot_examples"], settings["seed"]
        )
        return render("novbench/few.j2", descriptions=descriptions, examples=examples)
    if strategy == "rag":
        related = [
            {"title": title, "abstract": abstract}
            for title, abstract in zip(paper["retrieved_titles"], paper["retrieved_abstracts"])
        ]
        if not related:
            raise ValueError(f"paper {paper['paper_id']}: RAG needs retrieved papers, none given")
        return render("novbench/rag.j2", descriptions=descriptions, related=related)
    raise ValueError(f"unknown strategy '{strategy}' (known: {', '.join(STRATEGIES)})")


def builtin_messages(paper: dict, strategy: str, pool: pd.DataFrame, settings: dict) -> list:
    """Our system message and user message."""
    return [
        {"role": "system", "content": render("novbench/system.j2")},
        {"role": "user", "content": user_prompt(paper, strategy, pool, settings)},
    ]


def authors_messages(
    paper: dict,
    strategy: str,
    pool: pd.DataFrame,
    settings: dict,
    spec: ModelSpec,
    root: str,
    library: authors.LibraryCall | None = None,
    card: authors.CardFormat | None = None,
) -> list:
    """The messages the authors' script for ``spec`` builds: the descriptions as they inserted
    them (``novelty_text``), few-shot demonstrations with the raw gold text, RAG references.

    With ``library`` (the reviewer models) the script's prompt leaves the descriptions out and
    the library sends its system prompt, then the prompt followed by the descriptions. Their
    few-shot scripts pass the paper's own sentences as a fifth argument to a function of four,
    which cannot run; the four it takes are the two examples' inputs and outputs. With ``card``
    (the reviewer models without a script) the card's format wraps the script's prompt.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy '{strategy}' (known: {', '.join(STRATEGIES)})")
    prompt = authors.prompt_of(root, authors.script_path(spec, strategy))
    novelty = paper["novelty_text"]
    inserted = [] if library else [novelty]
    if strategy == "zero":
        text = prompt.render(*inserted)
    elif strategy == "few":
        count = (len(prompt.parameters) - len(inserted)) // 2
        examples = few_shot_draw(pool, paper["paper_id"], count, settings["seed"])
        text = prompt.render(
            *inserted,
            *(example["novelty_text"] for example in examples),
            *(example["gold_text"] for example in examples),
        )
    else:
        text = prompt.render(
            *inserted, list(paper["retrieved_titles"]), list(paper["retrieved_abstracts"])
        )
    if library:
        return [
            {"role": "system", "content": library.system},
            {"role": "user", "content": text + novelty},
        ]
    if card:
        return card.messages(text)
    system = [{"role": "system", "content": prompt.system}] if prompt.system else []
    return [*system, {"role": "user", "content": text}]


def generation_requests(
    inputs: pd.DataFrame,
    pool: pd.DataFrame,
    strategy: str,
    spec: ModelSpec,
    decoding: dict,
    settings: dict,
    prompts: str = "builtin",
    upstream_root: str | None = None,
    source_roots: dict[str, str] | None = None,
    *,
    generation_config: dict | None = None,
) -> list[dict]:
    """One chat request per paper of ``inputs`` for the cell (model, strategy).

    ``prompts: authors`` needs ``upstream_root``, a folder laid out like the authors' repository,
    and for the reviewer models the folder of the code their requests are read from, by source
    (``source_roots``: ``ai_researcher``, ``openreviewer``, ``reviewer2``). The ai_researcher
    models sample as the library does (its temperature, top_p and token limit).
    ``decoding.mode: authors`` on an open model needs its ``generation_config``
    (``noveval.novbench.decoding``).
    """
    if prompts not in PROMPTS:
        raise ValueError(f"novbench.prompts '{prompts}' is unknown (known: {', '.join(PROMPTS)})")
    if prompts == "authors" and not upstream_root:
        raise ValueError("novbench.prompts 'authors' needs the folder of the authors' scripts")
    library = card = None
    if prompts == "authors":
        library, card = authors.library_of(spec), authors.card_of(spec)
    sent = call_decoding(decoding, spec, generation_config, library_sampled=library is not None)
    if library:
        library = authors.library_call(_source_root(source_roots, authors.LIBRARY, spec), library)
        sent = {**sent, **library.sampling, "sampling": authors.LIBRARY}
    if card:
        card = authors.card_format(_source_root(source_roots, card["source"], spec), card)
    rows = []
    for paper in inputs.to_dict("records"):
        if prompts == "authors":
            messages = authors_messages(
                paper, strategy, pool, settings, spec, upstream_root, library, card
            )
        else:
            messages = builtin_messages(paper, strategy, pool, settings)
        rows.append(
            build_request(item_id=paper["paper_id"], spec=spec, messages=messages, decoding=sent)
        )
    return rows


def _source_root(source_roots: dict[str, str] | None, source: str, spec: ModelSpec) -> str:
    if not (source_roots or {}).get(source):
        raise ValueError(
            f"novbench.prompts 'authors': model '{spec.name}' needs the folder of the pinned "
            f"{source} files its request is read from"
        )
    return source_roots[source]
