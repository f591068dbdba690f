"""The judge track's workloads: each cell's calls, the AI-Scientist check's rounds, the Idea
Novelty Checker's steps, and their output tokens calibrated on the published costs."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pandas as pd

from noveval.core.registry import Registry
from noveval.inference.batches import CELLS
from noveval.inference.workloads import (
    PROMPT_ONLY,
    PlanSettings,
    Workload,
    output_tokens_per_call,
    prompt_tokens,
    request_tokens,
    text_tokens,
)
from noveval.judges import instances as judge_instances
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.grid.cells import DERIVED, LOOPED, OWN_RULE, change_label, release_kind
from noveval.judges.prompts import TOOLS, calls_of, judge_requests
from noveval.judges.statistics.calibration import Calibration
from noveval.judges.systems import ai_scientist
from noveval.judges.systems.novelty_checker import checker as novelty_checker


def judges_workloads(
    cells: list[dict],
    files: dict[str, dict[str, dict[str, str]]],
    declared: dict[str, int],
    judges: dict,
    decoding: dict,
    registry: Registry,
    authors: AuthorsPrompts | None,
    settings: PlanSettings,
) -> list[Workload]:
    """One workload per judge cell that calls a model (``no_aggregation`` reuses the reference's
    answers). A release file not downloaded yet counts its ``declared`` instances and stands in
    with the shipped sample's prompts; ``authors`` renders the authors' templates."""
    max_tokens = judges["max_tokens"]
    per_call: dict[tuple, float] = {}  # (file, change) -> prompt tokens of one call
    loaded: dict[str, pd.DataFrame] = {}  # file -> instances
    workloads = []
    for cell in cells:
        change = cell["change"]  # the prompt, whatever the form of the ideas
        if change in DERIVED:
            continue
        label = change_label(change, cell["ideas"])  # the workload's step: the published key
        kind = release_kind(cell["format"], cell["ideas"])
        kinds = files[cell["dataset"]][cell["setup"]]
        # a release without the purpose-mechanism files: the workflow rewrites the standard ones
        # (judges.rewrite_model), whose instances and prompts stand in for them here
        path = kinds.get(kind) or kinds[cell["format"]]
        available = Path(path).is_file()
        source = path if available else f"{settings.judges_sample}/{cell['format']}.yaml"
        if source not in loaded:
            loaded[source] = judge_instances.load_release(source, cell["setup"], cell["format"])
        count = len(loaded[source]) if available else declared[path]
        if change in LOOPED:
            workloads.append(
                ai_scientist_workload(
                    cell, loaded[source], count, judges, registry, settings, not available
                )
            )
            continue
        if change in OWN_RULE:
            workloads += checker_workloads(cell, count, judges, registry, settings)
            continue
        if (source, label) not in per_call:
            rows = judge_requests(
                loaded[source].to_dict("records"),
                change=change,
                spec=PROMPT_ONLY,
                decoding={**decoding, "max_tokens": max_tokens},
                calls={"pointwise": 1, "pairwise_per_order": 1},
                structured_output=False,
                authors=authors,
            )
            per_call[source, label] = prompt_tokens(rows, settings) / len(rows)
        calls = calls_of(change, judges["calls"], judges["calls_by_change"])
        per = (
            calls["pointwise"] if cell["format"] == "pointwise" else 2 * calls["pairwise_per_order"]
        )
        spec = registry.model(cell["model"])
        workloads.append(
            Workload(
                track="judges",
                dataset=cell["dataset"],
                model=cell["model"],
                batch=CELLS,
                step=label,
                strategy=f"{cell['format']}/{cell['setup']}",
                perturbation="none",
                papers=count,
                calls=count * per,
                input_tokens=round(count * per * per_call[source, label]),
                output_tokens=count
                * per
                * output_tokens_per_call(spec, max_tokens, settings, "judges"),
                stand_in=not available,
                web_searches=round(count * per * settings.web_searches_per_call)
                if change in TOOLS
                else 0,
            )
        )
    return workloads


# One found paper as the AI-Scientist check shows it (title, authors, venue, citations and an
# abstract of about 200 words), in tokens: an assumption.
FOUND_PAPER_TOKENS = 300


def ai_scientist_workload(
    cell: dict,
    ideas: pd.DataFrame,
    count: int,
    judges: dict,
    registry: Registry,
    settings: PlanSettings,
    stand_in: bool,
) -> Workload:
    """The AI-Scientist cell's calls at their most: ``count`` ideas x the system's rounds, the
    prompt growing by a round's message, its shown papers and an answer each round (the
    builtin messages, rendered for ``ideas``; see ``noveval.planning``)."""
    rounds = ai_scientist.system_settings(judges["systems"]["ai_scientist"])["rounds"]
    spec = registry.model(cell["model"])
    answer = output_tokens_per_call(spec, judges["max_tokens"], settings, "judges")
    prompts = ai_scientist.Prompts.builtin()
    first = [
        ai_scientist.Check(row["ideas"][0], rounds).messages(prompts)
        for row in ideas.to_dict("records")
    ]
    opening = sum(request_tokens(json.dumps(chat), settings) for chat in first) / len(first)
    shown = ai_scientist.RESULTS_PER_QUERY * FOUND_PAPER_TOKENS
    per_idea = sum(
        opening + (r - 1) * (opening - text_tokens(prompts.system, settings) + shown + answer)
        for r in range(1, rounds + 1)
    )
    return Workload(
        track="judges",
        dataset=cell["dataset"],
        model=cell["model"],
        batch=f"{cell['change']}/{cell['setup']}",  # one job per cell
        step=cell["change"],
        strategy=f"{cell['format']}/{cell['setup']}",
        perturbation="none",
        papers=count,
        calls=count * rounds,
        input_tokens=round(count * per_idea),
        output_tokens=count * rounds * answer,
        stand_in=stand_in,
    )


CHECKER_BATCH = "novelty_checker"  # the Idea Novelty Checker's calls: a rule of its own, no batch


def checker_workloads(
    cell: dict, count: int, judges: dict, registry: Registry, settings: PlanSettings
) -> list[Workload]:
    """The Idea Novelty Checker's calls for a cell's ``count`` ideas: keywords, facets and the
    verdict on the cell's model, RankGPT's windows on the reranker
    (noveval.judges.systems.novelty_checker.checker's planning assumptions)."""
    section = judges["novelty_checker"]
    tokens, windows = novelty_checker.PLANNED_PROMPT_TOKENS, novelty_checker.PLANNED_WINDOWS
    steps = (  # model, step, calls and prompt tokens per idea, decoding
        (cell["model"], cell["change"], 3, tokens["checker"], section["decoding"]),
        (
            section["reranker"] or cell["model"],
            f"{cell['change']} rerank",
            windows,
            windows * tokens["rerank"],
            section["rerank_decoding"],
        ),
    )
    workloads = []
    for model, step, calls, tokens_per_call, decoding in steps:
        spec = registry.model(model)
        budget = decoding.get("max_tokens") or judges["max_tokens"]
        workloads.append(
            Workload(
                track="judges",
                dataset=cell["dataset"],
                model=model,
                batch=f"{CHECKER_BATCH}/{cell['setup']}",  # one job per model and setup
                job_model=cell["model"],  # the reranker's calls are the checker job's
                step=step,
                strategy=f"{cell['format']}/{cell['setup']}",
                perturbation="none",
                papers=count,
                calls=count * calls,
                input_tokens=count * tokens_per_call,
                output_tokens=count
                * calls
                * output_tokens_per_call(spec, budget, settings, "judges"),
                stand_in=True,
            )
        )
    return workloads


def calibrated_judges(
    workloads: list[Workload],
    calibration: Calibration,
    registry: Registry,
    max_tokens: int,
    settings: PlanSettings,
) -> tuple[list[Workload], pd.DataFrame]:
    """``workloads`` with each judge cell's output tokens from ``calibration`` (per call, capped
    at ``max_tokens``; the plan's assumption where nothing is published), or the pilot's
    measured mean for a backbone it measured; and the values used per backbone, format and
    change."""
    rows, calibrated = {}, []
    for workload in workloads:
        # the checker's published cost is the whole system's (its reranker too): not calibrated
        if workload.track != "judges" or workload.batch.startswith(CHECKER_BATCH):
            calibrated.append(workload)
            continue
        format = workload.strategy.split("/")[0]
        spec = registry.model(workload.model)
        measured = settings.measured_answer(spec, "judges")
        if measured is None:
            assumed = output_tokens_per_call(spec, max_tokens, settings, "judges")
            value = calibration.output_tokens(spec, format, workload.step, assumed)
            per_call, source = min(max_tokens, round(value.per_call)), value.source
        else:
            per_call, source = min(max_tokens, math.ceil(measured)), "measured: pilot"
        calibrated.append(replace(workload, output_tokens=workload.calls * per_call))
        rows[workload.model, format, workload.step] = {
            "model": workload.model,
            "format": format,
            "change": workload.step,
            "output_tokens_per_call": per_call,
            "derived_from": source,
        }
    return calibrated, pd.DataFrame(list(rows.values()))
