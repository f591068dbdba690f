"""The compute plan: calls, tokens, GPU-hours and API cost of a grid, with no model and no GPU.

Input tokens come from rendered prompts: each NovBench cell's prompts are rendered (by the same
functions the requests rule uses) for the papers at hand, their characters counted and divided by
``chars_per_token`` (4: the usual rule of thumb for English with BPE tokenizers), and the mean per
call is scaled to the dataset's paper count. A dataset whose file is not on disk yet (declared by
URL and size: ``noveval.novbench.releases``) is stood in for by the shipped sample's papers. Output
tokens per call of a generation are an assumption: ``answer_tokens`` (the mean length of the
model answers in NovBench's human-evaluation files), plus ``reasoning_tokens`` for models that
reason, capped at ``decoding.max_tokens``; a judge call's are calibrated on the judge study's
published costs (``noveval.judges.calibration``), capped at ``judges.max_tokens``. GPU-hours =
GPUs x (startup + output tokens / throughput) per job, with the registry's
``throughput_tokens_per_s``; prefill is neglected (an order of magnitude faster). A call with
the hosted web search (the agentic judge) is assumed to search ``web_searches_per_call`` times,
each priced at the registry's ``price_per_thousand_web_searches``. The AI-Scientist check is
planned at its most: every idea runs all its rounds, each searching Semantic Scholar once, round
r's call carrying the r rounds' messages, ``FOUND_PAPER_TOKENS`` for each paper of the r - 1
searches shown and the r - 1 earlier answers.

A model the pilot measured (``plan.measured``, ``noveval.measured``) has its measured output
tokens per call (per track), throughput and server start in place of these assumptions.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from noveval.batches import CELLS, PARAPHRASE, SEARCH_CONTRIBUTIONS, SEARCH_QUERIES
from noveval.judges import ai_scientist, novelty_checker
from noveval.judges import instances as judge_instances
from noveval.judges.authors import FILES as AUTHORS_FILES
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.calibration import Calibration, calibrate
from noveval.judges.cells import DERIVED, LOOPED, OWN_RULE, release_kind, split_change
from noveval.judges.prompts import TOOLS, calls_of, judge_requests
from noveval.literature.assisted_search import AUTHORS_FILES as SEARCH_TEMPLATES
from noveval.literature.assisted_search import AssistedSearchPrompts
from noveval.novbench import generation, perturbation, records
from noveval.novbench.releases import perturbation_releases, release_files
from noveval.pricing import BATCH_SHARE, Usage
from noveval.registry import INFERENCE_RULES, ModelSpec, Registry, inference_env, load_registry
from noveval.reproduction.report import published
from noveval.scoring_cost import plan_jobs, plan_note
from noveval.upstream import UpstreamSource
from noveval.workloads import (
    PROMPT_ONLY,
    REFERENCE_CONCURRENCY,
    PlanSettings,
    Workload,
    generation_hours,
    output_tokens_per_call,
    prompt_tokens,
    request_tokens,
    startup_hours,
    text_tokens,
)

log = logging.getLogger(__name__)


def grid_cells(grid) -> list[dict]:
    """A grid's cells as plain dicts (rule params)."""
    return [asdict(cell) for cell in grid.cells]


def novbench_workloads(
    cells: list[dict],
    datasets: dict,
    paraphrase_model: str,
    novbench: dict,
    decoding: dict,
    registry: Registry,
    downloads: str,
    settings: PlanSettings,
) -> list[Workload]:
    """One workload per NovBench inference job of the grid ``cells`` (no paraphrases where the
    dataset's perturbations release has its `change` descriptions)."""
    releases = release_files(datasets, downloads)
    workloads = []
    for dataset in dict.fromkeys(cell["dataset"] for cell in cells):
        release = releases[dataset]
        source = release.path if release.available else settings.sample
        papers = records.load_release(source)
        size = release.paper_count()
        scale = size / len(papers)
        log.info("%s: %d papers; prompts rendered from %s", dataset, size, source)
        mine = [cell for cell in cells if cell["dataset"] == dataset]
        rendered = {}
        for strategy, kind in dict.fromkeys((c["strategy"], c["perturbation"]) for c in mine):
            # `change` inputs are paraphrases (a model's output): the originals stand in for them
            inputs = papers
            if kind == "del":
                inputs = perturbation.delete_sentences(
                    papers, novbench["keep_fraction"], novbench["seed"]
                )
            rows = generation.generation_requests(
                inputs, papers, strategy, PROMPT_ONLY, decoding, novbench
            )
            rendered[strategy, kind] = round(prompt_tokens(rows, settings) * scale)
        common = {"track": "novbench", "dataset": dataset, "papers": size}
        common["stand_in"] = not release.available
        for cell in mine:
            spec = registry.model(cell["model"])
            per_call = output_tokens_per_call(spec, decoding["max_tokens"], settings)
            workloads.append(
                Workload(
                    **common,
                    model=cell["model"],
                    batch=CELLS,
                    step="generation",
                    strategy=cell["strategy"],
                    perturbation=cell["perturbation"],
                    calls=size,
                    input_tokens=rendered[cell["strategy"], cell["perturbation"]],
                    output_tokens=size * per_call,
                )
            )
        released = "change" in perturbation_releases(datasets, downloads).get(dataset, {})
        if not released and any(cell["perturbation"] == "change" for cell in mine):
            spec = registry.model(paraphrase_model)
            rows = perturbation.paraphrase_requests(papers, spec, decoding)
            # a paraphrase is about as long as its sentence
            sentences = [s for descriptions in papers["descriptions"] for s in descriptions]
            answer = math.ceil(sum(text_tokens(s, settings) for s in sentences) / len(sentences))
            reasoning = settings.reasoning_tokens if spec.reasoning else 0
            calls = round(len(rows) * scale)
            workloads.append(
                Workload(
                    **common,
                    model=paraphrase_model,
                    batch=PARAPHRASE,
                    step="paraphrase",
                    strategy="-",
                    perturbation="change",
                    calls=calls,
                    input_tokens=round(prompt_tokens(rows, settings) * scale),
                    output_tokens=calls * min(decoding["max_tokens"], answer + reasoning),
                )
            )
    return workloads


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
        change = split_change(cell["change"])[0]  # the prompt, whatever the form of the ideas
        if change in DERIVED:
            continue
        kind = release_kind(cell["format"], cell["change"])
        path = files[cell["dataset"]][cell["setup"]][kind]
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
        if (source, cell["change"]) not in per_call:
            rows = judge_requests(
                loaded[source].to_dict("records"),
                change=change,
                spec=PROMPT_ONLY,
                decoding={**decoding, "max_tokens": max_tokens},
                calls={"pointwise": 1, "pairwise_per_order": 1},
                structured_output=False,
                authors=authors,
            )
            per_call[source, cell["change"]] = prompt_tokens(rows, settings) / len(rows)
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
                step=cell["change"],
                strategy=f"{cell['format']}/{cell['setup']}",
                perturbation="none",
                papers=count,
                calls=count * per,
                input_tokens=round(count * per * per_call[source, cell["change"]]),
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
    builtin messages, rendered for ``ideas``; see the module docstring)."""
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


CHECKER_BATCH = "novelty_checker"  # the Idea Novelty Checker's calls: a rule of its own, no batch


def checker_workloads(
    cell: dict, count: int, judges: dict, registry: Registry, settings: PlanSettings
) -> list[Workload]:
    """The Idea Novelty Checker's calls for a cell's ``count`` ideas: keywords, facets and the
    verdict on the cell's model, RankGPT's windows on the reranker (noveval.judges.novelty_checker's
    planning assumptions)."""
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
        if split_change(workload.step)[0] == "retrieval":
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


PLAN_COLUMNS = [
    "track",
    "model",
    "engine",
    "estimate",
    "rule",
    "environment",
    "step",
    "cells",
    "jobs",
    "requests",
    "input_tokens",
    "output_tokens",
    "web_searches",
    "gpus_per_job",
    "gpu_model",
    "gpu_hours",
    "gpu_hours_unperturbed",
    "wall_hours_unperturbed",
    "gpu_hours_saved",
    "job_hours_max",
    "api_cost_usd",
    "api_cost_batch_usd",
]


# The inference rule of a track whose calls are not rule infer's.
# the rules that send a track's or a step's calls where not the engine's inference rule
RULES = {
    "construction": "construction_judges_infer",
    "ai_scientist": "judges_ai_scientist",
    "novelty_checker": "judges_novelty_checker",
    "novelty_checker rerank": "judges_novelty_checker",
}


# The rules whose jobs run in the inference environment of their model's engine (a vLLM model's
# in workflow/envs/inference-vllm.yaml); every other rule runs in workflow/envs/noveval.yaml.
ENGINE_ENVIRONMENT_RULES = {"infer", "pilot_infer", "construction_judges_infer"}


def job_environment(spec: ModelSpec, rule: str) -> str:
    """The conda environment file a job of ``rule`` for ``spec`` runs in under the site's
    ``software_deployment: conda`` (as the rules' ``conda:`` directives name it)."""
    env = inference_env(spec) if rule in ENGINE_ENVIRONMENT_RULES else "noveval.yaml"
    return f"workflow/envs/{env}"


def plan_table(
    workloads: list[Workload],
    registry: Registry,
    concurrency: int,
    settings: PlanSettings,
    chunks: dict[str, int] | None = None,
) -> pd.DataFrame:
    """Per track × model × step: cells, jobs, calls, tokens, GPUs, GPU-hours and API cost; and
    totals.

    The cells of one model, dataset and batch share its jobs: ``chunks`` (by
    ``track/dataset/model/batch``, the DAG's chunking, ``noveval.cluster``; a batch not in it is
    one job) splits its calls into that many jobs, each with its server start, counted on the
    batch's first row (``jobs``); ``job_hours_max`` is the longest job's hours (a start and its
    share of the batch's generation), and ``gpu_hours_saved`` is what one start per cell would
    have cost on top. ``estimate``: whether the model's numbers on the track are the pilot's
    (measured) or the plan's assumptions; ``wall_hours_unperturbed``: the hours its jobs run for
    the unperturbed cells (server starts and their generation, whatever the GPUs).
    """
    rows = []
    for workload in workloads:
        spec = registry.model(workload.model)
        rule = RULES.get(workload.step, RULES.get(workload.track, INFERENCE_RULES[spec.engine]))
        rows.append(
            {
                **asdict(workload),
                "engine": spec.engine,
                "estimate": settings.estimate(spec.name, workload.track),
                "rule": rule,
                "gpus_per_job": spec.gpus,
                "gpu_model": spec.gpu_model or "",
                "environment": job_environment(spec, rule),
                "startup_hours": startup_hours(spec, settings),
                "generation_hours": generation_hours(
                    spec, workload.output_tokens, concurrency, settings
                ),
                "api_cost_usd": spec.cost_usd(
                    Usage(
                        workload.input_tokens,
                        workload.output_tokens,
                        web_searches=workload.web_searches,
                    )
                )
                if spec.engine == "api"
                else 0.0,
                "search_usd": workload.web_searches * spec.price_per_thousand_web_searches / 1e3,
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=PLAN_COLUMNS)
    frame["job_model"] = frame["job_model"].where(frame["job_model"] != "", frame["model"])
    batch = ["track", "dataset", "job_model", "batch"]
    job = frame.groupby(batch, sort=False)
    batch_chunks = frame[batch].agg("/".join, axis=1).map(chunks or {}).fillna(1).astype(int)
    frame["job_start"] = (~frame.duplicated(batch)) * batch_chunks
    frame["job_hours"] = (
        job["startup_hours"].transform("first")
        + job["generation_hours"].transform("sum") / batch_chunks
    )
    starts = frame["startup_hours"] * frame["job_start"]
    frame["gpu_hours"] = frame["gpus_per_job"] * (frame["generation_hours"] + starts)
    unperturbed = frame["generation_hours"].where(frame["perturbation"] == "none", 0.0)
    frame["wall_hours_unperturbed"] = unperturbed + starts
    frame["gpu_hours_unperturbed"] = frame["gpus_per_job"] * frame["wall_hours_unperturbed"]
    saved = frame["startup_hours"].where(frame["job_start"] == 0, 0.0)
    frame["gpu_hours_saved"] = frame["gpus_per_job"] * saved
    keys = [
        "track",
        "model",
        "engine",
        "estimate",
        "rule",
        "environment",
        "step",
        "gpus_per_job",
        "gpu_model",
    ]
    table = (
        frame.groupby(keys, sort=False)
        .agg(
            cells=("calls", "size"),
            jobs=("job_start", "sum"),
            requests=("calls", "sum"),
            input_tokens=("input_tokens", "sum"),
            output_tokens=("output_tokens", "sum"),
            web_searches=("web_searches", "sum"),
            gpu_hours=("gpu_hours", "sum"),
            gpu_hours_unperturbed=("gpu_hours_unperturbed", "sum"),
            wall_hours_unperturbed=("wall_hours_unperturbed", "sum"),
            gpu_hours_saved=("gpu_hours_saved", "sum"),
            job_hours_max=("job_hours", "max"),
            api_cost_usd=("api_cost_usd", "sum"),
            search_usd=("search_usd", "sum"),
        )
        .reset_index()
    )
    totals = [_total(table, keys, "total")]
    if table["track"].nunique() > 1:  # a subtotal per track, then the grand total
        totals = [_total(part, keys, track) for track, part in table.groupby("track", sort=False)]
        totals.append(_total(table, keys, "total"))
    table = pd.concat([table, pd.DataFrame(totals)], ignore_index=True)
    # a batch API halves the tokens' price, not the searches'
    tokens_usd = table["api_cost_usd"] - table["search_usd"]
    table["api_cost_batch_usd"] = tokens_usd * BATCH_SHARE + table["search_usd"]
    for column in (
        "cells",
        "jobs",
        "requests",
        "input_tokens",
        "output_tokens",
        "web_searches",
        "gpus_per_job",
    ):
        table[column] = table[column].astype(int)
    for column in (
        "gpu_hours",
        "gpu_hours_unperturbed",
        "wall_hours_unperturbed",
        "gpu_hours_saved",
        "job_hours_max",
        "api_cost_usd",
        "api_cost_batch_usd",
    ):
        table[column] = table[column].round(2)
    return table[PLAN_COLUMNS]


def _total(table: pd.DataFrame, keys: list[str], track: str) -> dict:
    """One summary row of ``table`` (model 'all')."""
    total = table.sum(numeric_only=True)
    total["job_hours_max"] = table["job_hours_max"].max()
    total["gpus_per_job"] = table["gpus_per_job"].max()
    return {**dict.fromkeys(keys, ""), **total.to_dict(), "track": track, "model": "all"}


PAPER_WALL_HOURS = (5, 70)  # NovBench paper: wall hours per model, for its unperturbed cells
PAPER_JUDGES_USD = 15_000  # the judge study: about this much in API calls, all experiments


def plan_notes(
    table: pd.DataFrame,
    workloads: list[Workload],
    settings: PlanSettings,
    decoding: dict,
    authors: str = "builtin",
    calibration: Calibration | None = None,
) -> str:
    """The assumptions behind the numbers, and how they compare with the papers', in words."""
    lines = [
        f"- Input tokens: rendered prompts, {settings.chars_per_token:g} characters per token.",
        f"- Output tokens per NovBench call: {settings.answer_tokens} (answer) + "
        f"{settings.reasoning_tokens} for reasoning models, capped at "
        f"decoding.max_tokens = {decoding['max_tokens']}. `change` prompts are estimated from "
        "the unperturbed descriptions (paraphrases are a model's output).",
        f"- GPU-hours: GPUs x ({settings.startup_min:g} min model start + output tokens / the "
        "registry's throughput_tokens_per_s) per job: estimates from memory bandwidth for vLLM "
        f"with {REFERENCE_CONCURRENCY} requests in flight (see config/models.yaml). "
        "gpu_hours_unperturbed, wall_hours_unperturbed: the cells without perturbation, the "
        "ones the NovBench paper ran for every model, in GPU-hours and in hours of the jobs.",
        _measured_note(table, settings),
        "- Jobs: the inference jobs of each model, dataset and batch (its cells, or the "
        "paraphrases) as the DAG splits them for the site file's partitions (job_share), each "
        "with a server start, counted on the batch's first row; job_hours_max: the longest "
        "job's hours; gpu_hours_saved: what a start per "
        f"cell would have added ({int(table['cells'].iloc[-1])} cells, "
        f"{int(table['jobs'].iloc[-1])} jobs, {table['gpu_hours_saved'].iloc[-1]:g} GPU-hours).",
        "- API cost: list prices per million tokens (models.yaml), reasoning tokens billed as "
        "output; api_cost_usd: live calls, api_cost_batch_usd: through the provider's batch API "
        "(half price).",
        plan_note(),
        "- Not estimated here: for the judges, D₋ "
        "generation and purpose-mechanism rewrites by the pipeline (the paper grid reads both "
        "from the release) and the cells the grid leaves out (named in the log).",
    ]
    stand_ins = sorted({w.dataset for w in workloads if w.stand_in and w.track == "novbench"})
    if stand_ins:
        lines.append(
            f"- {', '.join(stand_ins)}: not downloaded yet; prompts rendered from "
            f"{settings.sample} and scaled to the declared number of papers."
        )
    lines.append(_paper_comparison(table))
    if any(w.track == "construction" for w in workloads):
        lines.append(
            "- Construction of the judge study's benchmark (track construction): the venue's "
            "size is assumed (construction.judges.expected), not yet fetched; one job per "
            "step (signals, strip, generation)."
        )
    if any(w.track == "judges" for w in workloads):
        lines.append(_judges_notes(table, workloads, settings, authors, calibration))
    return "\n".join(lines)


def _judges_notes(
    table: pd.DataFrame,
    workloads: list[Workload],
    settings: PlanSettings,
    authors: str,
    calibration: Calibration | None,
) -> str:
    """The judge track's assumptions, its total against the paper's, and the calibration's
    error on the held-out published costs."""
    usd = table[(table["track"] == "judges") & (table["model"] != "all")]["api_cost_usd"].sum()
    batch = usd * BATCH_SHARE
    prompts = {
        "authors": "the authors' templates",
        "builtin": "our templates",
        "stand-in": "our templates, standing in for the authors' (not downloaded yet)",
    }[authors]
    text = (
        f"- Judges: one row per backbone and change (step); calls = instances x calls per "
        f"instance (pointwise: calls.pointwise; pairwise: 2 orders x pairwise_per_order, "
        f"calls_by_change applied); no_aggregation reuses the reference's answers (no calls). "
        f"Prompts rendered from {prompts}; output tokens per call calibrated on the published "
        "costs (section Judge output tokens), capped at judges.max_tokens. "
        f"Total {usd:,.0f} USD against the paper's about {PAPER_JUDGES_USD:,} USD for all its "
        f"experiments ({batch:,.0f} USD through batch APIs); this grid counts one run of each "
        "cell."
    )
    searches = sum(w.web_searches for w in workloads if w.track == "judges")
    if searches:
        text += (
            f" The agentic judge's calls search the web {settings.web_searches_per_call:g} times "
            f"each (plan.web_searches_per_call, an assumption: {searches:,} searches), priced "
            "per thousand searches (models.yaml price_per_thousand_web_searches); its calls go "
            "live; the batch column halves only their tokens' price."
        )
    if not any(w.track == "judges" and w.step == "retrieval" for w in workloads):
        text += (
            " Retrieval is not in it (the paper's related work came from an LLM-assisted search "
            "whose results are not released; its cells are left out)."
        )
    if calibration is not None:
        text += " " + held_out_note(calibration)
    stand_ins = sorted({w.dataset for w in workloads if w.track == "judges" and w.stand_in})
    if stand_ins:
        text += (
            f" {', '.join(stand_ins)}: not downloaded yet; prompts rendered from "
            f"{settings.judges_sample} and scaled to the declared pairs and ideas."
        )
    return text


def held_out_note(calibration: Calibration) -> str:
    """The plan's error on the published costs kept out of its calibration, in words."""
    held = calibration.held_out
    if held is None or held.empty:
        return (
            "No published cost is held out of the calibration: none of its cells is in this grid."
        )
    cells = "; ".join(
        f"{row.model} {row.setup} {row.format} {row.change}: {row.plan_usd:.2f} USD planned, "
        f"{row.published_usd:g} USD published ({row.error:+.0%})"
        for row in held.itertuples()
    )
    return (
        f"Held out of the calibration, the plan's cost of the authors' runs (their instances, "
        f"{calibration.pricing} prices) against the published: {cells}; mean absolute error "
        f"{held['error'].abs().mean():.0%}."
    )


def _span(values: pd.Series, digits: int) -> str:
    low, high = f"{values.min():.{digits}f}", f"{values.max():.{digits}f}"
    return low if low == high else f"{low}-{high}"


def _measured_note(table: pd.DataFrame, settings: PlanSettings) -> str:
    """Which models' numbers are the pilot's and which are assumed, in words."""
    rows = table[table["model"] != "all"].drop_duplicates(["track", "model"])
    measured = rows[rows["estimate"] == "measured"]
    assumed = rows[rows["estimate"] == "assumed"]

    def named(part: pd.DataFrame) -> str:
        return "; ".join(
            f"{track}: {', '.join(models)}" for track, models in part.groupby("track")["model"]
        )

    if measured.empty:
        return (
            f"- Measured: none ({settings.measured or 'no measured file'} not found); every "
            "model's numbers are assumed. `snakemake pilot` measures them."
        )
    text = (
        f"- Measured by the pilot ({settings.measured}): output tokens per call, throughput "
        f"and server start of {named(measured)} (estimate = measured); the paraphrases keep "
        "their assumption."
    )
    if not assumed.empty:
        text += f" Assumed: {named(assumed)}."
    return text


def _paper_comparison(table: pd.DataFrame) -> str:
    """Which GPU models' unperturbed cells fall outside the NovBench paper's 5-70 wall hours per
    model, and why."""
    low, high = PAPER_WALL_HOURS
    gpu = table[
        (table["track"] == "novbench") & (table["gpus_per_job"] > 0) & (table["model"] != "all")
    ]
    per_model = gpu.groupby("model", sort=False)[["wall_hours_unperturbed", "gpu_hours"]].sum()
    if per_model.empty:
        return "- No model of this grid runs on GPUs."
    hours = per_model["wall_hours_unperturbed"]
    inside = hours.between(low, high)
    text = (
        f"- The NovBench paper reports {low}-{high} wall hours per model for its unperturbed "
        "cells. Like for like (each model's unperturbed cells here, in hours of its jobs: "
        f"server starts and generation), {int(inside.sum())} of the {len(per_model)} GPU "
        "models of this grid fall within."
    )
    below = hours[hours < low]
    if not below.empty:
        text += (
            f" Below: {', '.join(below.index)} ({_span(below, 1)} h): small models with short "
            f"answers, and vLLM serves {REFERENCE_CONCURRENCY} requests at once where the "
            "authors' scripts called `generate` one paper at a time."
        )
    above = hours[hours > high]
    if not above.empty:
        text += f" Above: {', '.join(above.index)} ({_span(above, 0)} h)."
    text += (
        f" With the `change` and `del` perturbations (which the paper ran with GPT-4o only, on "
        f"100 papers) the GPU models take {_span(per_model['gpu_hours'], 0)} GPU-hours each."
    )
    return text


def weights_table(models, registry: Registry) -> pd.DataFrame:
    """The weights rule downloads of ``models`` (vLLM models; registry ``download_gb``), and
    their total: each model once, into the shared cache, whatever its number of jobs."""
    rows = [
        {
            "model": spec.name,
            "reference": spec.reference,
            "revision": spec.revision or "unpinned",
            "download_gb": spec.download_gb,
        }
        for spec in (registry.model(name) for name in dict.fromkeys(models))
        if spec.engine == "vllm"
    ]
    table = pd.DataFrame(rows, columns=["model", "reference", "revision", "download_gb"])
    if table.empty:
        return table
    total = {"model": "total", "reference": "", "revision": ""}
    return pd.concat([table, pd.DataFrame([{**total, "download_gb": table["download_gb"].sum()}])])


def scoring_table(workloads: list[Workload], scoring: dict) -> pd.DataFrame:
    """The scoring jobs of the NovBench cells (``noveval.scoring_cost``), per dataset x model."""
    outputs: dict[tuple[str, str], tuple[int, int]] = {}
    for workload in workloads:
        if workload.track == "novbench" and workload.step == "generation":
            key = workload.dataset, workload.model
            papers, answers = outputs.get(key, (workload.papers, 0))
            outputs[key] = (papers, answers + workload.calls)
    return pd.DataFrame(plan_jobs(outputs, scoring))


def with_scoring(table: pd.DataFrame, scoring: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a ``cpu_hours`` column and, after the NovBench rows, one row per model's
    scoring jobs; the NovBench subtotal and the total count their jobs and CPU-hours."""
    table = table.assign(cpu_hours=0.0)
    if scoring.empty:
        return table
    per_model = scoring.groupby("model", sort=False).agg(
        jobs=("dataset", "size"), cpu_hours=("cpu_hours", "sum"), job_hours_max=("job_hours", "max")
    )
    blank = {c: 0 if pd.api.types.is_numeric_dtype(table[c]) else "" for c in table.columns}
    labels = {"track": "novbench", "engine": "cpu", "rule": "novbench_score", "step": "scoring"}
    rows = pd.DataFrame(
        [{**blank, **labels, "model": model, **row} for model, row in per_model.iterrows()]
    )
    totals = (table["model"] == "all") & table["track"].isin(["novbench", "total"])
    table.loc[totals, "jobs"] += len(scoring)
    table.loc[totals, "cpu_hours"] = scoring["cpu_hours"].sum()
    longest = scoring["job_hours"].max()
    table.loc[totals, "job_hours_max"] = table.loc[totals, "job_hours_max"].clip(lower=longest)
    after = table.index[(table["track"] == "novbench") & (table["model"] != "all")].max() + 1
    table = pd.concat([table.iloc[:after], rows, table.iloc[after:]], ignore_index=True)
    table["jobs"] = table["jobs"].astype(int)
    for column in ("cpu_hours", "job_hours_max"):
        table[column] = table[column].astype(float).round(2)
    return table


def write_plan(
    table: pd.DataFrame,
    notes: str,
    csv_path: str | Path,
    markdown_path: str | Path,
    weights: pd.DataFrame | None = None,
    scoring: pd.DataFrame | None = None,
    judge_output: pd.DataFrame | None = None,
):
    """compute_plan.csv (full precision) and compute_plan.md (table, weights, scoring, the judges'
    output tokens per call and notes)."""
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    shown = table.copy()
    for column in ("input_tokens", "output_tokens"):
        shown[column] = (shown[column] / 1e6).round(2)
    shown = shown.rename(columns={"input_tokens": "input_Mtok", "output_tokens": "output_Mtok"})
    text = f"# Compute plan\n\n{shown.to_markdown(index=False)}\n\n"
    if weights is not None and not weights.empty:
        text += (
            "## Weights\n\nDownloaded once per model by rule weights into the site's weights "
            "cache (GB: models.yaml download_gb).\n\n"
            f"{weights.to_markdown(index=False)}\n\n"
        )
    if scoring is not None and not scoring.empty:
        text += (
            "## Metric scoring\n\nOne CPU job per dataset and model (rule novbench_score); "
            "runtime_min: its SLURM time limit from the same estimate.\n\n"
            f"{scoring.round(2).to_markdown(index=False)}\n\n"
        )
    if judge_output is not None and not judge_output.empty:
        text += (
            "## Judge output tokens\n\nOutput tokens per call of each judge backbone, format and "
            "change, calibrated on the judge study's published costs (noveval.judges.calibration: "
            "published = that cell's cost; as X = the same backbone's change X; median = the "
            "calibrated backbones of the same API).\n\n"
            f"{judge_output.to_markdown(index=False)}\n\n"
        )
    Path(markdown_path).write_text(f"{text}## Assumptions\n\n{notes}\n")


def _searches(
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


def compute_plan(
    cells: list[dict],
    datasets: dict,
    paraphrase_model: str,
    novbench: dict,
    decoding: dict,
    inference: dict,
    plan: dict,
    registry_path: str,
    downloads: str,
    csv_path: str,
    markdown_path: str,
    judge_cells: list[dict] = (),
    judge_files: dict | None = None,
    judge_declared: dict | None = None,
    judges: dict | None = None,
    upstream_root: str = "",
    construction: dict | None = None,
    literature: dict | None = None,
    novbench_construction: dict | None = None,
    novbench_upstream: str = "",
    not_runnable: dict | None = None,
    chunks: dict[str, int] | None = None,
) -> None:
    """Rule plan: the compute plan of the configured grid (NovBench, then the judges, with the
    retrieval change's literature search when ``judges.retrieval.search`` is Semantic Scholar:
    ``literature`` holds its settings; then the construction of the judge study's benchmark,
    ``construction``: config construction.judges; then NovBench's, ``novbench_construction``:
    config construction.novbench, its prompts read under ``novbench_upstream``).
    ``not_runnable``: the judges whose cells the grid skips, with why and how many cells (none of
    them is planned). ``chunks``: the jobs of each inference batch as the DAG splits it
    (``noveval.cluster.InferenceJobs.batch_chunks``)."""
    settings = PlanSettings.from_config({"plan": plan})
    registry = load_registry(registry_path)
    workloads = novbench_workloads(
        cells, datasets, paraphrase_model, novbench, decoding, registry, downloads, settings
    )
    prompts, authors = (judges or {}).get("prompts", "builtin"), None
    if prompts == "authors":
        found = all((Path(upstream_root) / name).is_file() for name in AUTHORS_FILES)
        authors = AuthorsPrompts(Path(upstream_root)) if found else None
        prompts = "authors" if found else "stand-in"
    calibration, output_tokens, searched, looped = None, pd.DataFrame(), None, None
    checker_searches = None
    if judge_cells:
        judge_workloads = judges_workloads(
            judge_cells, judge_files, judge_declared, judges, decoding, registry, authors, settings
        )
        calibration = calibrate(
            judge_workloads, published("judges"), registry, settings.published_pricing
        )
        judge_workloads, output_tokens = calibrated_judges(
            judge_workloads, calibration, registry, judges["max_tokens"], settings
        )
        workloads += judge_workloads
        log.info("judge output tokens per call:\n%s", output_tokens.to_string(index=False))
        log.info("plan: %s", held_out_note(calibration))
        searched = _searches(judge_workloads, judges, literature, registry, upstream_root, settings)
        if searched:
            workloads += searched[0]
        looped = ai_scientist_searches(judge_workloads, judges, literature)
        checked = sum(w.papers for w in judge_workloads if w.step in OWN_RULE)
        if checked:
            rate = ((literature or {}).get("semantic_scholar") or {}).get("requests_per_second", 1)
            checker_searches = literature_searches(checked, novelty_checker.PLANNED_SEARCHES, rate)
    if construction:
        # Imported here: the construction's plan builds on this module's workloads.
        from noveval.construction.judge_plan import construction_workloads

        workloads += construction_workloads(
            construction, decoding, registry, upstream_root, settings
        )
    if novbench_construction:
        from noveval.construction.novbench_plan import novbench_construction_workloads

        workloads += novbench_construction_workloads(
            novbench_construction, registry, novbench_upstream, settings
        )
    table = plan_table(workloads, registry, inference["concurrency"], settings, chunks)
    notes = plan_notes(table, workloads, settings, decoding, prompts, calibration)
    if searched:
        notes += "\n- " + literature_note(searched[1])
    if judge_cells and looped:
        notes += "\n- " + ai_scientist_note(looped)
    if novbench_construction:
        from noveval.construction.novbench_plan import construction_note

        notes += "\n" + construction_note(novbench_construction)
    if checker_searches:
        notes += "\n- " + checker_note(checker_searches)
    for model, (reason, count) in sorted((not_runnable or {}).items()):
        notes += (
            f"\n- {model}: {reason}; its {count} judge cells are skipped, neither run nor "
            f"priced here (judges.substitutions: {{{model}: <successor>}} runs another model in "
            "its place)"
        )
    scoring = scoring_table(workloads, novbench["scoring"])
    table = with_scoring(table, scoring)
    weights = weights_table([w.model for w in workloads], registry)
    write_plan(table, notes, csv_path, markdown_path, weights, scoring, output_tokens)
    if not weights.empty:
        log.info("plan: %.1f GB of weights to download", weights.iloc[-1]["download_gb"])
    total = table.iloc[-1]
    log.info(
        "plan: %d jobs, %d calls, %.1f GPU-hours, %.2f USD of API calls",
        total["jobs"],
        total["requests"],
        total["gpu_hours"],
        total["api_cost_usd"],
    )
