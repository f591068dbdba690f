"""The Semantic Scholar searches of a grid (the retrieval change, the AI-Scientist check, the
Idea Novelty Checker), the assisted search's LLM workloads and the plan's lines on them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from noveval.core.registry import Registry
from noveval.core.upstream import UpstreamSource
from noveval.inference.batches import SEARCH_CONTRIBUTIONS, SEARCH_QUERIES
from noveval.inference.workloads import (
    PlanSettings,
    Workload,
    output_tokens_per_call,
    request_tokens,
)
from noveval.judges import instances as judge_instances
from noveval.judges.grid.cells import LOOPED
from noveval.judges.systems import ai_scientist
from noveval.judges.systems.novelty_checker import checker as novelty_checker
from noveval.literature.assisted_search import AUTHORS_FILES as SEARCH_TEMPLATES
from noveval.literature.assisted_search import AssistedSearchPrompts


@dataclass(frozen=True)
class LiteratureSearches:
    """The Semantic Scholar searches of the retrieval change: ``n_queries`` per unique idea, at
    most one request per ``1 / requests_per_second`` seconds (a rerun answers from the cache)."""

    ideas: int
    searches: int
    hours: float


def literature_searches(
    ideas: int, n_queries: int, requests_per_second: float
) -> LiteratureSearches:
    """The searches and their time at the API's rate for ``ideas`` unique ideas."""
    searches = ideas * n_queries
    return LiteratureSearches(ideas, searches, searches / requests_per_second / 3600)


def literature_note(searches: LiteratureSearches) -> str:
    """The plan's line on the retrieval change's literature search."""
    return (
        f"Literature search (retrieval change): {searches.searches:,} Semantic Scholar searches "
        f"for {searches.ideas:,} ideas, about {searches.hours:.1f} h at the API's rate (cached: "
        "a rerun makes none)."
    )


def checker_note(searches: LiteratureSearches) -> str:
    """The plan's line on the Idea Novelty Checker's searches."""
    return (
        f"Idea Novelty Checker: about {searches.searches:,} Semantic Scholar requests for "
        f"{searches.ideas:,} checks of an idea ({novelty_checker.PLANNED_SEARCHES} each: 9 "
        f"keyword and title searches assumed, the snippet search and its papers' batch), about "
        f"{searches.hours:.1f} h at the API's rate (cached: a rerun makes none)."
    )


def ai_scientist_searches(
    workloads: list[Workload], judges: dict, literature: dict | None
) -> LiteratureSearches | None:
    """The AI-Scientist cells' Semantic Scholar searches at their most (one per round), and
    their time at the API's rate (a rerun answers them from the cache)."""
    ideas = sum(w.papers for w in workloads if w.step in LOOPED)
    if not ideas:
        return None
    rounds = ai_scientist.system_settings(judges["systems"]["ai_scientist"])["rounds"]
    rate = ((literature or {}).get("semantic_scholar") or {}).get("requests_per_second", 1.0)
    return literature_searches(ideas, rounds, rate)


def ai_scientist_note(searches: LiteratureSearches) -> str:
    """The plan's line on the AI-Scientist check's searches."""
    return (
        f"AI-Scientist check: at most {searches.searches:,} Semantic Scholar searches (one per "
        f"round) for {searches.ideas:,} ideas over its cells, about {searches.hours:.1f} h at "
        "the API's rate on the submitting host (cached: a rerun makes none); its calls are "
        "planned at every round of every idea, an upper bound."
    )


def search_workloads(
    judge_workloads: list[Workload],
    retrieval: dict,
    max_tokens: int,
    registry: Registry,
    prompts: AssistedSearchPrompts,
    settings: PlanSettings,
) -> tuple[list[Workload], int]:
    """The assisted search's two LLM steps for the ideas of the retrieval cells (one
    contributions and one query-writing call per idea, once per format and setup whatever the
    judge), and the number of unique ideas. Prompts are rendered for a sample idea (its
    contributions summary stood in by ``max_contributions`` lines)."""
    spec = registry.model(retrieval["model"])
    budget = retrieval["max_tokens"] or max_tokens
    ideas: dict[tuple[str, str], int] = {}
    for workload in judge_workloads:
        if workload.step == "retrieval":  # retrieval: on the ideas as written only
            per = 1 if workload.strategy.startswith("pointwise/") else 2
            ideas[workload.dataset, workload.strategy] = workload.papers * per
    idea = judge_instances.load_release(
        f"{settings.judges_sample}/pointwise.yaml", "sample", "pointwise"
    )["ideas"].iloc[0][0]
    summary = "\n".join(["Methodology:"] + ["  - " + idea[:200]] * retrieval["max_contributions"])
    step_prompts = {
        SEARCH_CONTRIBUTIONS: prompts.contributions(idea, retrieval["max_contributions"]),
        SEARCH_QUERIES: prompts.queries(idea, summary, retrieval["n_queries"]),
    }
    workloads = [
        Workload(
            track="judges",
            dataset=dataset,
            model=spec.name,
            batch=step,
            step=step,
            strategy=strategy,
            perturbation="none",
            papers=count,
            calls=count,
            input_tokens=count * request_tokens(json.dumps(messages), settings),
            output_tokens=count * output_tokens_per_call(spec, budget, settings),
            stand_in=True,
        )
        for (dataset, strategy), count in ideas.items()
        for step, messages in step_prompts.items()
    ]
    return workloads, sum(ideas.values())


def retrieval_searches(
    judge_workloads, judges, literature, registry, upstream_root, settings
) -> tuple[list[Workload], LiteratureSearches] | None:
    """The literature search's LLM workloads and searches, when the grid searches."""
    retrieval = judges["retrieval"]
    if retrieval.get("search") != "semantic_scholar" or not retrieval.get("model"):
        return None
    root = Path(upstream_root) if upstream_root else None
    authors = (
        judges["prompts"] == "authors"
        and root is not None
        and all((root / name).is_file() for name in SEARCH_TEMPLATES)
    )
    prompts = AssistedSearchPrompts(UpstreamSource("judges", root) if authors else None)
    workloads, ideas = search_workloads(
        judge_workloads, retrieval, judges["max_tokens"], registry, prompts, settings
    )
    if not ideas:
        return None
    rate = ((literature or {}).get("semantic_scholar") or {}).get("requests_per_second", 1.0)
    return workloads, literature_searches(ideas, retrieval["n_queries"], rate)
