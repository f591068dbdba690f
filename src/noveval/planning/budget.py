"""What a run spends on hosted APIs: the planned cost of its unanswered calls, the cap (config
``budget``), the ledger its calling jobs keep while they run, and the spend so far.

Before the first job, ``onstart`` prices the calls of the run's pending inference jobs that no
journal has answered (:func:`planned_cost`): a job whose requests tables are written is priced
from its own prompts, one whose tables are not written yet from the DAG's estimate of its calls
(``noveval.cluster.resources.InferenceJobs``) at ``budget.assumed_prompt_tokens`` each; output
tokens are the compute plan's (``noveval.inference.workloads.output_tokens_per_call``), batch-API
calls at the batch price. Spend so far plus that plan over ``budget.max_usd`` (or a track's cap,
``budget.tracks``) stops the run before any job, naming the largest cells.

While running, the calling jobs keep and read the ledger (``noveval.inference.ledger``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noveval.core.markdown import markdown_table
from noveval.core.pricing import Usage
from noveval.inference.chunks import chunk_ids
from noveval.inference.engines.journal import read_records
from noveval.inference.engines.provider_batches import uses_batch_api
from noveval.inference.job import batch_requests
from noveval.inference.ledger import (
    Budget,
    BudgetExceeded,
    ledger_spend,
)
from noveval.inference.workloads import PlanSettings, output_tokens_per_call, request_tokens

LARGEST_CELLS = 5  # cells named when the plan passes a cap


@dataclass(frozen=True)
class PendingJob:
    """A pending calling job of a hosted model, as ``onstart`` sees it."""

    track: str
    dataset: str
    model: str
    batch: str
    chunk: str
    requests: list[str]  # its requests tables (written or not yet)
    estimated_calls: int  # the DAG's estimate, for tables not written yet
    responses: str  # its responses table (under the model's folder, as run_inference reads it)


def planned_cost(
    jobs: Iterable[PendingJob],
    registry,
    cache_dir: str | Path,
    settings,
    max_tokens: dict[str, int],
    batch_api,
    budget: Budget,
) -> pd.DataFrame:
    """Planned USD of each cell's calls that no journal answered: columns track, dataset, model,
    cell, calls, usd. ``max_tokens``: the output cap by track; ``batch_api``: config
    ``inference.batch_api``."""

    rows, answered = [], {}
    for job in jobs:
        spec = registry.model(job.model)
        batch = uses_batch_api(registry, job.model, batch_api)
        output = output_tokens_per_call(
            spec, max_tokens.get(job.track, max_tokens["novbench"]), settings, job.track
        )
        where = {"track": job.track, "dataset": job.dataset, "model": job.model}
        if job.requests and all(Path(path).exists() for path in job.requests):
            model_folder = Path(job.responses).parents[2]
            requests = batch_requests(job.requests, model_folder, job.model)
            unique = requests.drop_duplicates("request_id")
            mine = set(chunk_ids(unique["request_id"].tolist(), job.chunk))
            if job.model not in answered:
                answered[job.model] = answered_ids(Path(cache_dir) / job.model)
            pending = unique[unique["request_id"].isin(mine - answered[job.model])]
            for cell, part in pending.groupby("cell"):
                prompts = sum(request_tokens(m, settings) for m in part["messages"])
                usage = Usage(prompts, output * len(part), batch=batch)
                rows.append(
                    {**where, "cell": cell, "calls": len(part), "usd": spec.cost_usd(usage)}
                )
        else:
            calls = job.estimated_calls
            usage = Usage(calls * budget.assumed_prompt_tokens, calls * output, batch=batch)
            cell = f"{job.batch} (not rendered yet)"
            rows.append({**where, "cell": cell, "calls": calls, "usd": spec.cost_usd(usage)})
    frame = pd.DataFrame(rows, columns=["track", "dataset", "model", "cell", "calls", "usd"])
    keys = ["track", "dataset", "model", "cell"]
    return frame.groupby(keys, as_index=False, sort=False)[["calls", "usd"]].sum()


def answered_ids(model_cache: Path) -> set[str]:
    """Request ids some journal of the model answered."""
    return {
        record["request_id"]
        for path in sorted(model_cache.glob("*.jsonl"))
        for record in read_records(path)
        if not record.get("error")
    }


def check_plan(planned: pd.DataFrame, budget: Budget, cache_dir: str | Path) -> str:
    """The planned cost in words; raise :class:`BudgetExceeded` naming the planned total and the
    largest cells where spend so far plus the plan passes a cap."""
    if planned.empty:
        return ""
    total = planned["usd"].sum()
    text = (
        f"budget: {len(planned)} cells, {int(planned['calls'].sum())} calls no journal answered, "
        f"{total:.4f} USD planned; {ledger_spend(cache_dir):.4f} USD spent so far"
    )
    scopes = [("budget.max_usd", budget.max_usd, None)] if budget.max_usd is not None else []
    scopes += [(f"budget.tracks.{t}", cap, t) for t, cap in budget.tracks.items()]
    for key, cap, track in scopes:
        part = planned if track is None else planned[planned["track"] == track]
        spent = ledger_spend(cache_dir, track)
        if spent + part["usd"].sum() > cap:
            largest = part.nlargest(LARGEST_CELLS, "usd")
            cells = "; ".join(
                f"{r.track}/{r.dataset}/{r.model}/{r.cell}: {r.calls} calls, {r.usd:.4f} USD"
                for r in largest.itertuples()
            )
            raise BudgetExceeded(
                f"{text}. {part['usd'].sum():.4f} USD planned + {spent:.4f} USD spent exceeds "
                f"{key} = {cap:g} USD: no job started. Largest cells: {cells}"
            )
    return text


def spend_table(cache_dir: str | Path, registry, results: str) -> pd.DataFrame:
    """Spend so far per model, track and provider, from every journal's cost column (a
    journal's track: :func:`journal_track`)."""
    rows = []
    prefix = str(Path(results)).strip("/").replace("/", "__") + "__"
    for path in sorted(Path(cache_dir).glob("*/*.jsonl")):
        model = path.parent.name
        job = path.stem
        track = journal_track(job, prefix)
        records = read_records(path)
        rows.append(
            {
                "model": model,
                "track": track,
                "provider": provider(registry, model),
                "calls": sum(not r.get("error") for r in records),
                "usd": sum(r.get("cost_usd") or 0.0 for r in records),
            }
        )
    frame = pd.DataFrame(rows, columns=["model", "track", "provider", "calls", "usd"])
    return frame.groupby(["model", "track", "provider"], as_index=False)[["calls", "usd"]].sum()


# Journals of the judges' dedicated systems (judges.stages.ai_scientist, judges.novelty_checker;
# scideator-: the Idea Novelty Checker's journals written before its rename)
JUDGE_SYSTEM_JOURNALS = ("judges-", "novelty_checker-", "scideator-")


def journal_track(job: str, prefix: str) -> str:
    """The track of a journal: its job's output under the results folder (``prefix``, flattened
    as journal names are), the judges for their dedicated systems' journals, else 'other'."""
    if job.startswith(prefix):
        return job[len(prefix) :].split("__")[0]
    return "judges" if job.startswith(JUDGE_SYSTEM_JOURNALS) else "other"


def report_spend(cache_dir: str | Path, registry, results: str, plan_csv: str | Path) -> str:
    """`snakemake spend`: the spend so far (:func:`spend_table`) beside the compute plan's cost
    of the same model and track (``planned_usd``, live prices; where the plan is written), and
    the total."""
    table = spend_table(cache_dir, registry, results)
    if Path(plan_csv).is_file():
        plan = pd.read_csv(plan_csv)
        plan = plan[plan["model"] != "all"].groupby(["track", "model"], as_index=False)
        planned = plan["api_cost_usd"].sum().rename(columns={"api_cost_usd": "planned_usd"})
        table = table.merge(planned, on=["track", "model"], how="left")
    total = f"spent so far: {table['usd'].sum():.6f} USD in {int(table['calls'].sum())} calls"
    return f"{markdown_table(table, floatfmt='.6f')}\n\n{total}\n"


def provider(registry, model: str) -> str:
    """Who bills a model's calls: its key's provider (OPENAI_API_KEY: openai), else 'local'."""
    if model not in registry.models:
        return "unknown"
    key = registry.model(model).api_key_env
    return key.removesuffix("_API_KEY").lower() if key else "local"


# The rules whose jobs answer requests tables through noveval.inference.job (priced before the run)
PRICED_RULES = {"infer", "infer_api", "pilot_infer", "pilot_infer_api", "construction_judges_infer"}
GRID_RULES = {"infer", "infer_api"}  # their calls are estimated from the DAG before rendering


def pending_jobs(jobs, registry, inference_jobs) -> list[PendingJob]:
    """The run's pending jobs of hosted models that answer requests tables (Snakemake jobs)."""
    pending = []
    for job in jobs:
        wildcards = job.wildcards_dict
        if job.rule.name not in PRICED_RULES or registry.model(wildcards["model"]).engine != "api":
            continue
        key = (
            wildcards.get("track", "construction"),
            wildcards.get("dataset", ""),
            wildcards["model"],
            wildcards.get("batch", job.rule.name),
        )
        requests = job.input.get("requests", [])
        estimated = inference_jobs.size(*key)[1] if job.rule.name in GRID_RULES else 0
        pending.append(
            PendingJob(
                *key,
                chunk=wildcards.get("chunk", "1-of-1"),
                requests=[requests] if isinstance(requests, str) else list(requests),
                estimated_calls=estimated,
                responses=job.output[0],
            )
        )
    return pending


def check_run(jobs, config: dict, registry, inference_jobs, cache_dir: str | Path) -> str:
    """``onstart``: the planned cost of the run's pending calls in words; raise
    :class:`BudgetExceeded` where it passes a cap (:func:`check_plan`)."""

    budget = Budget.from_config(config)
    planned = planned_cost(
        pending_jobs(jobs, registry, inference_jobs),
        registry,
        cache_dir,
        PlanSettings.from_config(config),
        {"novbench": config["decoding"]["max_tokens"], "judges": config["judges"]["max_tokens"]},
        config["inference"].get("batch_api"),
        budget,
    )
    return check_plan(planned, budget, cache_dir)
