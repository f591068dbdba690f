"""NovBench generation requests: zero-shot, few-shot and RAG prompts for one grid cell."""

from __future__ import annotations

import random

import pandas as pd

from noveval.novbench.parsing import format_evaluation
from noveval.registry import ModelSpec
from noveval.requests import build_request
from noveval.templates import render

STRATEGIES = ("zero", "few", "rag")


def few_shot_examples(pool: pd.DataFrame, paper_id: str, count: int, seed: int) -> list[dict]:
    """``count`` other papers of the pool, drawn reproducibly for ``paper_id``."""
    others = pool[pool["paper_id"] != paper_id].sort_values("paper_id")
    rng = random.Random(f"{seed}:{paper_id}")
    chosen = rng.sample(range(len(others)), k=min(count, len(others)))
    return [
        {
            "descriptions": list(others.iloc[i]["descriptions"]),
            "evaluation": format_evaluation(
                list(zip(others.iloc[i]["gold_labels"], others.iloc[i]["gold_texts"]))
            ),
        }
        for i in chosen
    ]


def user_prompt(paper: dict, strategy: str, pool: pd.DataFrame, settings: dict) -> str:
    """The user message of ``strategy`` for one (possibly perturbed) paper."""
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


def generation_requests(
    inputs: pd.DataFrame,
    pool: pd.DataFrame,
    strategy: str,
    spec: ModelSpec,
    decoding: dict,
    settings: dict,
) -> list[dict]:
    """One chat request per paper of ``inputs`` for the cell (model, strategy)."""
    system = render("novbench/system.j2")
    return [
        build_request(
            item_id=paper["paper_id"],
            spec=spec,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": user_prompt(paper, strategy, pool, settings)},
            ],
            decoding=decoding,
        )
        for paper in inputs.to_dict("records")
    ]
